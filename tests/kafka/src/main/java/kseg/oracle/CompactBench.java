// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.Cleaner;
import org.apache.kafka.storage.internals.log.KsegCleanerBridge;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogToClean;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;

/**
 * kseg-compact's benchmark (tests/bench/compact.sh) with Kafka's own code.
 *   gen OUT_PARTITION_DIR BYTES SUPERSEDED CODEC RECORD_BYTES
 *     a compacted partition of 128 MiB segments written by appendAsLeader: ~RECORD_BYTES records
 *     (16-byte keys, text values) in batches of ~16 KiB, each key written 1/(1-SUPERSEDED) times
 *     (so that fraction of the records is superseded), CODEC none/zstd/lz4/gzip/snappy; rolled
 *     at the end (all of it cleanable), shut down and checkpointed as a broker leaves it.
 *   clean PARTITION_DIR MAP_BYTES NOW
 *     Kafka's cleaner rounds (LogCleanerManager.cleanableOffsets, Cleaner.doClean) until clean;
 *     prints "rounds N ms M" for the rounds alone (no JVM start, no log load).
 */
public final class CompactBench {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("gen")) gen(new File(args[1]), Long.parseLong(args[2]), Double.parseDouble(args[3]), args[4],
                Integer.parseInt(args[5]));
        else clean(new File(args[1]), Integer.parseInt(args[2]), Long.parseLong(args[3]));
    }

    static Map<String, Object> config() {
        return Map.of("cleanup.policy", "compact", "segment.bytes", 128 << 20, "max.message.bytes", 16 << 20,
                "message.timestamp.after.max.ms", Long.MAX_VALUE, "message.timestamp.before.max.ms", Long.MAX_VALUE);
    }

    static void gen(File dir, long size, double superseded, String codec, int recordBytes) throws Exception {
        Generate.deleteTree(dir);
        dir.mkdirs();
        Compression c = codec.equals("none") ? Compression.NONE : Compression.of(codec).build();
        FixedTime time = new FixedTime(FixedTime.START_MS);
        Random rnd = new Random(7);
        long records = size / (recordBytes + 8);
        long keys = Math.max(1, (long) (records * (1 - superseded)));
        TopicPartition tp = UnifiedLog.parseTopicPartitionName(dir);
        UnifiedLog log = Kafka.open(dir, config(), time, 0, 0, false, null);
        {
            long n = 0;
            while (log.size() < size) {
                List<SimpleRecord> batch = new ArrayList<>();
                for (int bytes = 0; bytes < 16 * 1024; bytes += recordBytes) {
                    byte[] key = String.format("k%015d", (n++ * 7919) % keys).getBytes();
                    byte[] value = new byte[Math.max(1, recordBytes - 40)];
                    for (int i = 0; i < value.length; i++) value[i] = (byte) ('a' + rnd.nextInt(8));
                    batch.add(new SimpleRecord(time.milliseconds(), key, value));
                }
                log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, c, TimestampType.CREATE_TIME, 0, batch), 0);
                time.sleep(1);
            }
            log.roll();
            log.updateHighWatermark(log.logEndOffset());
            Truncate.shutDown(log);
            log.flush(true);
            long leo = log.logEndOffset();
            log.close();
            Truncate.write(dir.getParentFile(), "recovery-point-offset-checkpoint", tp, leo);
            Truncate.write(dir.getParentFile(), "replication-offset-checkpoint", tp, leo);
            Files.writeString(dir.getParentFile().toPath().resolve(".kafka_cleanshutdown"), "{\"version\":0,\"brokerEpoch\":7}");
        }
    }

    static void clean(File dir, int mapBytes, long now) throws Exception {
        TopicPartition tp = UnifiedLog.parseTopicPartitionName(dir);
        FixedTime time = new FixedTime(now);
        UnifiedLog log = Kafka.open(dir, config(), time, 0, LoadCheck.checkpoint(dir, "recovery-point-offset-checkpoint", tp, 0L),
                true, null);
        log.updateHighWatermark(log.logEndOffset());
        OffsetCheckpointFile file = new OffsetCheckpointFile(new File(dir.getParentFile(), "cleaner-offset-checkpoint"),
                new LogDirFailureChannel(1));
        Map<TopicPartition, Long> lines = new HashMap<>();
        Cleaner cleaner = new Cleaner(0, new SkimpyOffsetMap(mapBytes), 262_144, 1_048_588, 0.9,
                new Throttler(Double.MAX_VALUE, Long.MAX_VALUE, "cleaner-io", "bytes", time), time, p -> { });
        long start = System.nanoTime();
        int rounds = 0;
        while (true) {
            long[] o = KsegCleanerBridge.cleanableOffsets(log, Optional.ofNullable(lines.get(tp)), now);
            LogToClean c = new LogToClean(log, o[0], o[1], false);
            if (c.firstDirtyOffset() >= c.firstUncleanableOffset()) break;
            lines.put(tp, cleaner.doClean(c, now).getKey());
            file.write(lines);
            rounds++;
        }
        long ms = (System.nanoTime() - start) / 1_000_000;
        log.close();
        System.out.println("rounds " + rounds + " ms " + ms);
    }
}
