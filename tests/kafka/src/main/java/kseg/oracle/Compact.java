// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.Cleaner;
import org.apache.kafka.storage.internals.log.KsegCleanerBridge;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogToClean;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;

/**
 * Kafka's own log cleaner, for kseg-compact's oracle (compact-oracle.py). One JVM runs many jobs.
 *
 * Usage: Compact JOBS_FILE, one job a line, tab-separated:
 *   clean PARTITION_DIR NOWS MAP_BYTES RESULT_FILE [key=value ...]   (topic config as key=value)
 *     loads PARTITION_DIR cleanly (its log dir's checkpoints; the high watermark from
 *     replication-offset-checkpoint, else the log end), then for each time in NOWS (comma-
 *     separated ms; "N*T" repeats T N times) runs one round as LogCleanerManager and the
 *     cleaner thread do: cleanableOffsets from the log dir's cleaner-offset-checkpoint, a
 *     LogToClean, Cleaner.doClean with a SkimpyOffsetMap of MAP_BYTES (as LogCleaner sizes it:
 *     dedupe buffer / threads), and the checkpoint set to the round's end. A round with nothing
 *     cleanable is skipped. Then the log is shut down as a broker does and closed.
 *     RESULT_FILE gets "round N first_dirty F first_uncleanable U end E" lines, or
 *     "refused <exception>" where Kafka throws.
 *   digest PARTITION_DIR OUT_FILE
 *     every batch of every segment, its header fields but the CRC and length, and every record
 *     (offset, timestamp, key, value, headers in base64): what two logs must share when their
 *     compressed bytes differ.
 */
public final class Compact {
    public static void main(String[] args) throws Exception {
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            if (line.isBlank()) continue;
            List<String> f = new ArrayList<>(Arrays.asList(line.split("\t")));
            try {
                if (f.get(0).equals("digest")) digest(new File(f.get(1)), Path.of(f.get(2)));
                else clean(new File(f.get(1)), f.get(2), Integer.parseInt(f.get(3)), Path.of(f.get(4)),
                        Truncate.config(f.subList(5, f.size())));
            } catch (Exception e) {
                throw new IllegalStateException(line, e);
            }
        }
    }

    static void clean(File dir, String nows, int mapBytes, Path result, Map<String, Object> config) throws Exception {
        TopicPartition tp = UnifiedLog.parseTopicPartitionName(dir);
        long logStart = LoadCheck.checkpoint(dir, "log-start-offset-checkpoint", tp, 0L);
        long recoveryPoint = LoadCheck.checkpoint(dir, "recovery-point-offset-checkpoint", tp, 0L);
        Long hw = LoadCheck.checkpoint(dir, "replication-offset-checkpoint", tp, null);
        List<Long> times = new ArrayList<>();
        for (String t : nows.split(",")) {
            String[] rep = t.split("\\*");
            for (int i = 0; i < (rep.length == 2 ? Integer.parseInt(rep[0]) : 1); i++)
                times.add(Long.parseLong(rep[rep.length - 1]));
        }
        FixedTime time = new FixedTime(times.get(0));
        UnifiedLog log = Kafka.open(dir, config, time, logStart, recoveryPoint, true, null);
        log.updateHighWatermark(hw == null ? log.logEndOffset() : hw);
        File ckpt = new File(dir.getParentFile(), "cleaner-offset-checkpoint");
        OffsetCheckpointFile file = new OffsetCheckpointFile(ckpt, new LogDirFailureChannel(1));
        Map<TopicPartition, Long> lines = new HashMap<>(ckpt.exists() ? file.read() : Map.of());
        // LogCleaner's sizes: io buffer 512 KiB / threads / 2, at most message.max.bytes.
        Cleaner cleaner = new Cleaner(0, new SkimpyOffsetMap(mapBytes), 262_144, 1_048_588, 0.9,
                new Throttler(Double.MAX_VALUE, Long.MAX_VALUE, "cleaner-io", "bytes", time), time, p -> { });
        try (PrintStream ps = new PrintStream(Files.newOutputStream(result), false, StandardCharsets.UTF_8)) {
            int round = 0;
            for (long now : times) {
                time.advance(now - time.milliseconds());
                round++;
                long[] o = KsegCleanerBridge.cleanableOffsets(log, Optional.ofNullable(lines.get(tp)), now);
                LogToClean c = new LogToClean(log, o[0], o[1], false);
                if (c.firstDirtyOffset() >= c.firstUncleanableOffset()) continue;
                try {
                    long end = cleaner.doClean(c, now).getKey();
                    lines.put(tp, end);
                    file.write(lines);
                    ps.println("round " + round + " first_dirty " + c.firstDirtyOffset() + " first_uncleanable "
                            + c.firstUncleanableOffset() + " end " + end);
                } catch (Exception e) {
                    ps.println("refused " + e.toString().replace('\n', ' '));
                    break;
                }
            }
        }
        Truncate.shutDown(log);
        log.close();
    }

    static void digest(File dir, Path out) throws Exception {
        File[] logs = dir.listFiles((d, n) -> n.endsWith(".log"));
        Arrays.sort(logs);
        try (PrintStream ps = new PrintStream(Files.newOutputStream(out), false, StandardCharsets.UTF_8)) {
            for (File f : logs) {
                ps.println("segment " + f.getName());
                try (FileRecords fr = FileRecords.open(f)) {
                    for (RecordBatch b : fr.batches()) {
                        ps.println("batch base=" + b.baseOffset() + " last=" + b.lastOffset() + " magic=" + b.magic()
                                + " codec=" + b.compressionType() + " ts_type=" + b.timestampType()
                                + " max_ts=" + b.maxTimestamp() + " horizon=" + b.deleteHorizonMs()
                                + " pid=" + b.producerId() + " epoch=" + b.producerEpoch() + " seq=" + b.baseSequence()
                                + " txn=" + b.isTransactional() + " control=" + b.isControlBatch()
                                + " leader_epoch=" + b.partitionLeaderEpoch() + " count=" + b.countOrNull());
                        for (Record r : b) {
                            StringBuilder sb = new StringBuilder("  offset=" + r.offset() + " ts=" + r.timestamp()
                                    + " key=" + LoadCheck.b64(r.key()) + " value=" + LoadCheck.b64(r.value()) + " headers=[");
                            for (Header h : r.headers())
                                sb.append(h.key()).append(':').append(h.value() == null ? "-" : Base64.getEncoder().encodeToString(h.value())).append(',');
                            ps.println(sb.append(']'));
                        }
                    }
                }
            }
        }
    }
}
