// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/** Writes one large segment for the benchmarks with Kafka's own log code.
 *  Usage: BigSegment OUT_PARTITION_DIR WORKLOAD SIZE_BYTES [SEGMENT_BYTES]
 *  (SEGMENT_BYTES: roll there, for a partition of several segments; default one segment)
 *  WORKLOAD: v2-none-small (~100 B records), v2-none-10k (10 KiB records), v2-lz4, v2-zstd,
 *  v2-gzip, v2-snappy (~100 B records, batches of up to 16 KiB as a producer's batch.size),
 *  v1-gzip (legacy wrappers, appended as a follower would), v2-txn (~4 KiB batches of ~100 B
 *  records from 64 transactional producers, each transaction ended by its marker after 1-8
 *  batches, a third aborted, and 64 idempotent ones), v2-tiny (what a linger.ms=0 producer makes:
 *  batches of 1-8 ~100 B records from 16 idempotent producers), offsets (a __consumer_offsets
 *  partition: the group coordinator's offset commits for 200 groups, 1-5 partitions a commit, as
 *  the coordinator appends them). Broker defaults otherwise
 *  (index.interval.bytes 4096). Text values from a seeded Random, so they compress as logs do. */
public final class BigSegment {
    private static final String[] WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet "
            + "kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey "
            + "xray yankee zulu 0 1 2 3 4 5 6 7 8 9 user order item price status ok error").split(" ");

    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        String workload = args[1];
        long size = Long.parseLong(args[2]);
        Generate.deleteTree(dir);
        dir.mkdirs();
        if (workload.equals("v2-tiny") || workload.equals("offsets")) {
            small(dir, size, workload.equals("offsets"));
            return;
        }
        if (workload.equals("v2-txn")) {
            transactional(dir, size, args.length > 3 ? Integer.parseInt(args[3]) : Integer.MAX_VALUE);
            return;
        }
        boolean legacy = workload.startsWith("v1");
        boolean big = workload.endsWith("10k");
        Compression codec = switch (workload.substring(workload.indexOf('-') + 1).replace("-small", "").replace("-10k", "")) {
            case "none" -> Compression.NONE;
            case "lz4" -> Compression.lz4().build();
            case "zstd" -> Compression.zstd().build();
            case "gzip" -> Compression.gzip().build();
            case "snappy" -> Compression.snappy().build();
            default -> throw new IllegalArgumentException("unknown workload " + workload);
        };
        FixedTime time = new FixedTime(1_700_000_000_000L);
        int segmentBytes = args.length > 3 ? Integer.parseInt(args[3]) : Integer.MAX_VALUE;
        Map<String, Object> config = Map.of("segment.bytes", segmentBytes,
                "segment.index.bytes", 64 * 1024 * 1024, "max.message.bytes", 16 * 1024 * 1024,
                "message.timestamp.after.max.ms", Long.MAX_VALUE, "message.timestamp.before.max.ms", Long.MAX_VALUE);
        Random rnd = new Random(42);
        try (UnifiedLog log = Kafka.open(dir, config, time, 0, 0, false, null)) {
            long offset = 0;
            while (log.size() < size) {
                List<SimpleRecord> records = new ArrayList<>();
                int bytes = 0;
                while (bytes < 16 * 1024) {
                    byte[] value = text(rnd, big ? 10 * 1024 : 60 + rnd.nextInt(80));
                    byte[] key = ("key-" + rnd.nextInt(100_000)).getBytes();
                    records.add(new SimpleRecord(time.milliseconds() + records.size(), key, value));
                    bytes += value.length + key.length;
                    if (big && records.size() >= 1) break;
                }
                if (legacy) {
                    MemoryRecords batch = Kafka.batch(RecordBatch.MAGIC_VALUE_V1, codec, TimestampType.CREATE_TIME,
                            offset, records);
                    log.appendAsFollower(batch, 0);
                } else {
                    MemoryRecords batch = Kafka.batch(RecordBatch.MAGIC_VALUE_V2, codec, TimestampType.CREATE_TIME,
                            0, records);
                    log.appendAsLeader(batch, 0);
                }
                offset += records.size();
                time.sleep(1);
            }
            log.flush(true);
        }
    }

    static void transactional(File dir, long size, int segmentBytes) throws Exception {
        FixedTime time = new FixedTime(1_700_000_000_000L);
        Map<String, Object> config = Map.of("segment.bytes", segmentBytes, "segment.index.bytes", 64 * 1024 * 1024);
        Random rnd = new Random(42);
        int producers = 128;
        int[] seq = new int[producers];
        boolean[] open = new boolean[producers];
        try (UnifiedLog log = Kafka.open(dir, config, time, 0, 0, false, null)) {
            while (log.size() < size) {
                int p = rnd.nextInt(producers);
                boolean txn = p < 64;
                long pid = (txn ? 5000 : 6000) + p;
                if (txn && open[p] && rnd.nextInt(4) == 0) {
                    var type = rnd.nextInt(3) == 0 ? org.apache.kafka.common.record.internal.ControlRecordType.ABORT
                                                   : org.apache.kafka.common.record.internal.ControlRecordType.COMMIT;
                    Kafka.appendMarker(log, MemoryRecords.withEndTransactionMarker(0L, time.milliseconds(), 0, pid, (short) 0,
                            new org.apache.kafka.common.record.internal.EndTransactionMarker(type, 1)), 0);
                    open[p] = false;
                } else {
                    List<SimpleRecord> records = new ArrayList<>();
                    int bytes = 0;
                    while (bytes < 4 * 1024) {
                        byte[] value = text(rnd, 60 + rnd.nextInt(80));
                        records.add(new SimpleRecord(time.milliseconds(), ("key-" + rnd.nextInt(100_000)).getBytes(), value));
                        bytes += value.length + 10;
                    }
                    log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0,
                            pid, (short) 0, seq[p], txn, 0, records), 0);
                    seq[p] += records.size();
                    open[p] |= txn;
                }
                log.updateHighWatermark(log.logEndOffset());
                time.sleep(1);
            }
            log.flush(true);
        }
    }

    /** Batches of a few records each: the per-batch cost dominates these partitions. */
    static void small(File dir, long size, boolean offsets) throws Exception {
        FixedTime time = new FixedTime(1_700_000_000_000L);
        Map<String, Object> config = Map.of("segment.bytes", Integer.MAX_VALUE, "segment.index.bytes", 64 * 1024 * 1024,
                "message.timestamp.after.max.ms", Long.MAX_VALUE, "message.timestamp.before.max.ms", Long.MAX_VALUE);
        Random rnd = new Random(42);
        int producers = 16;
        int[] seq = new int[producers];
        org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde serde =
                new org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde();
        org.apache.kafka.common.Uuid topicId = new org.apache.kafka.common.Uuid(42, 42);
        try (UnifiedLog log = Kafka.open(dir, config, time, 0, 0, false, null)) {
            while (log.size() < size) {
                List<SimpleRecord> records = new ArrayList<>();
                if (offsets) {
                    String group = "group-" + rnd.nextInt(200);
                    int n = 1 + rnd.nextInt(5);
                    for (int p = 0; p < n; p++) {
                        var r = org.apache.kafka.coordinator.group.GroupCoordinatorRecordHelpers.newOffsetCommitRecord(
                                group, "topic-" + rnd.nextInt(20), p,
                                new org.apache.kafka.coordinator.group.OffsetAndMetadata(rnd.nextInt(1_000_000),
                                        java.util.OptionalInt.of(3), "", time.milliseconds(), java.util.OptionalLong.empty(),
                                        topicId));
                        records.add(new SimpleRecord(time.milliseconds(), serde.serializeKey(r), serde.serializeValue(r)));
                    }
                    log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME,
                            0, records), 0, org.apache.kafka.storage.internals.log.AppendOrigin.COORDINATOR);
                } else {
                    int n = 1 + rnd.nextInt(8);
                    for (int i = 0; i < n; i++)
                        records.add(new SimpleRecord(time.milliseconds(), ("key-" + rnd.nextInt(100_000)).getBytes(),
                                text(rnd, 60 + rnd.nextInt(80))));
                    int p = rnd.nextInt(producers);
                    log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME,
                            0, 7000 + p, (short) 0, seq[p], false, 0, records), 0);
                    seq[p] += n;
                }
                time.sleep(1);
            }
            log.flush(true);
        }
    }

    private static byte[] text(Random rnd, int n) {
        StringBuilder sb = new StringBuilder(n + 16);
        while (sb.length() < n) sb.append(WORDS[rnd.nextInt(WORDS.length)]).append(' ');
        sb.setLength(n);
        return sb.toString().getBytes();
    }
}
