// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileLogInputStream.FileChannelRecordBatch;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.storage.internals.log.UnifiedLog;

import static kseg.oracle.Generate.topicConfig;

/**
 * Crash shapes. Where Kafka itself leaves the shape (preallocate=true) it is captured from a
 * live log; otherwise a named recipe damages a Kafka-written segment, locating batches with
 * Kafka's own FileRecords reader. Every recipe is recorded in case.json.
 */
final class Recipes {
    private Recipes() { }

    /** Writes the v2/none basic case into c and returns its last (active) .log file. */
    static File base(Case c) throws Exception {
        Generate.basic(c, RecordBatch.MAGIC_VALUE_V2, "none");
        File[] logs = new File(c.dir, "orders-0").listFiles(f -> f.getName().endsWith(".log"));
        java.util.Arrays.sort(logs);
        return logs[logs.length - 1];
    }

    /** [position, size] of every batch of a segment, by Kafka's reader. */
    static List<int[]> batches(File log) throws Exception {
        List<int[]> out = new ArrayList<>();
        try (FileRecords fr = FileRecords.open(log, false)) {
            int pos = 0;
            for (FileChannelRecordBatch b : fr.batches()) {
                out.add(new int[]{pos, b.sizeInBytes()});
                pos += b.sizeInBytes();
            }
        }
        return out;
    }

    static void truncate(File f, long size) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) { raf.setLength(size); }
    }

    static void write(File f, long pos, byte[] bytes) throws Exception {
        try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) { raf.seek(pos); raf.write(bytes); }
    }

    /** Recipe torn-tail: cut the active segment in the middle of its last batch. */
    static void tornTail(Case c) throws Exception {
        File log = base(c);
        int[] last = batches(log).get(batches(log).size() - 1);
        truncate(log, last[0] + last[1] / 2);
        c.info.put("recipe", "torn-tail: truncate " + log.getName() + " to (last batch position " + last[0]
                + ") + (its size " + last[1] + ") / 2");
    }

    /** Recipe torn-header: leave only 7 bytes (less than offset+length) of the last batch. */
    static void tornHeader(Case c) throws Exception {
        File log = base(c);
        int[] last = batches(log).get(batches(log).size() - 1);
        truncate(log, last[0] + 7);
        c.info.put("recipe", "torn-header: truncate " + log.getName() + " to (last batch position " + last[0] + ") + 7");
    }

    /** Recipe zero-tail: the last two batches of the active segment overwritten with zeros,
     *  file length unchanged (a crash after the size was persisted but not the data). */
    static void zeroTail(Case c) throws Exception {
        File log = base(c);
        List<int[]> bs = batches(log);
        int from = bs.get(bs.size() - 2)[0];
        write(log, from, new byte[(int) (log.length() - from)]);
        c.info.put("recipe", "zero-tail: zero " + log.getName() + " from position " + from
                + " (start of the second-to-last batch) to its end, keeping the length");
    }

    /** Recipe zero-appended: 4096 zero bytes appended after the last complete batch. */
    static void zeroAppended(Case c) throws Exception {
        File log = base(c);
        long len = log.length();
        write(log, len, new byte[4096]);
        c.info.put("recipe", "zero-appended: append 4096 zero bytes to " + log.getName() + " (was " + len + " bytes)");
    }

    /** Recipe corrupt-size: the batch-length field of a middle batch set to 0x7fffff00. */
    static void corruptSize(Case c) throws Exception {
        File log = new File(c.dir, "orders-0/00000000000000000000.log");
        base(c);
        List<int[]> bs = batches(log);
        int[] mid = bs.get(bs.size() / 2);
        write(log, mid[0] + 8, new byte[]{0x7f, (byte) 0xff, (byte) 0xff, 0x00});
        c.info.put("recipe", "corrupt-size: set the 4-byte length field (position+8) of batch " + (bs.size() / 2)
                + " (position " + mid[0] + ") of " + log.getName() + " to 0x7fffff00");
    }

    /** Recipe crc-mismatch: one byte flipped in the last byte of a middle batch (record data). */
    static void crcMismatch(Case c) throws Exception {
        File log = new File(c.dir, "orders-0/00000000000000000000.log");
        base(c);
        List<int[]> bs = batches(log);
        int[] mid = bs.get(bs.size() / 2);
        long pos = mid[0] + mid[1] - 1;
        byte[] b = new byte[1];
        try (RandomAccessFile raf = new RandomAccessFile(log, "r")) { raf.seek(pos); raf.readFully(b); }
        write(log, pos, new byte[]{(byte) (b[0] ^ 0x01)});
        c.info.put("recipe", "crc-mismatch: xor 0x01 into byte " + pos + " (last byte of batch " + (bs.size() / 2)
                + " at position " + mid[0] + ") of " + log.getName());
    }

    /** Kafka's own zero-filled tail: preallocate=true makes the active segment's .log
     *  segment.bytes long; a running broker leaves it that way (it is trimmed on roll/close). */
    static void preallocated(Case c) throws Exception {
        Map<String, Object> cfg = topicConfig("preallocate", true, "internal.segment.bytes", 16384,
                "segment.index.bytes", Generate.SMALL_INDEX_BYTES, "index.interval.bytes", 256);
        File pdir = c.partitionDir("prealloc", 0, cfg);
        File live = new File(c.dir, ".live");
        UnifiedLog log = Kafka.open(new File(live, pdir.getName()), cfg, c.time, 0, 0, false, c.topicId("prealloc"));
        for (int b = 0; b < 45; b++) {
            log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                    MoreCases.records(c, 1 + c.rnd.nextInt(6), true)), 0);
            c.time.advance(3);
        }
        log.flush(false);
        Files.createDirectories(pdir.toPath());
        for (File f : Generate.sortedFiles(new File(live, pdir.getName())))
            Files.copy(f.toPath(), new File(pdir, f.getName()).toPath(), StandardCopyOption.REPLACE_EXISTING);
        log.close();
        Generate.deleteTree(live);
        c.step("45 batches with preallocate=true, internal.segment.bytes=16384; copied while the log was open");
    }

    /** A whole broker log dir after a clean shutdown: three partitions (one compacted and
     *  cleaned) and every root file, written with Kafka's checkpoint writers. */
    static void brokerLogDir(Case c) throws Exception {
        List<UnifiedLog> logs = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            Map<String, Object> cfg = MoreCases.smallSegments();
            UnifiedLog log = Kafka.open(c.partitionDir("orders", p, cfg), cfg, c.time, 0, 0, false, c.topicId("orders"));
            for (int b = 0; b < 20 + 10 * p; b++) {
                log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.of(p == 0 ? "none" : "zstd").build(),
                        TimestampType.CREATE_TIME, 0, MoreCases.records(c, 1 + c.rnd.nextInt(6), true)), 0);
                c.time.advance(4);
            }
            log.updateHighWatermark(log.logEndOffset() - 2);   // the last records not yet replicated
            logs.add(log);
        }
        Map<String, Object> cfg = MoreCases.smallSegments("cleanup.policy", "compact");
        UnifiedLog acc = Kafka.open(c.partitionDir("accounts", 0, cfg), cfg, c.time, 0, 0, false, c.topicId("accounts"));
        for (int b = 0; b < 30; b++) {
            acc.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                    List.of(new org.apache.kafka.common.record.internal.SimpleRecord(c.time.milliseconds(),
                            c.key(c.rnd.nextInt(10)), c.text(30)))), 0);
            c.time.advance(4);
        }
        acc.roll();
        acc.updateHighWatermark(acc.logEndOffset());
        MoreCases.clean(c, acc);
        logs.add(acc);
        for (UnifiedLog l : logs) l.flush(false);
        c.step("orders-0 (20 batches, none), orders-1 (30 batches, zstd), HW = LEO - 2; accounts-0 compacted and cleaned");
        RootFiles.write(c, logs, Map.of(new TopicPartition("accounts", 0), acc.activeSegment().baseOffset()));
        for (UnifiedLog l : logs) l.close();
        c.step("closed all logs");
    }
}
