// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordHelpers;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.OffsetAndMetadata;
import org.apache.kafka.metadata.ConfigRepository;
import org.apache.kafka.metadata.properties.MetaProperties;
import org.apache.kafka.metadata.properties.MetaPropertiesVersion;
import org.apache.kafka.metadata.properties.PropertiesUtils;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.Cleaner;
import org.apache.kafka.storage.internals.log.KsegCleanerBridge;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogManager;
import org.apache.kafka.storage.internals.log.LogStartOffsetIncrementReason;
import org.apache.kafka.storage.internals.log.LogToClean;
import org.apache.kafka.storage.internals.log.SkimpyOffsetMap;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.utils.Throttler;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * A whole broker log dir for tests/bench/logdir.sh, written and loaded by Kafka 4.4.0's own code.
 *
 *   generate OUT_LOG_DIR PARTITIONS OFFSETS_PARTITIONS SEED
 *     PARTITIONS partitions topic-NN-P of 100 topics (partition i is topic-(i%100), partition
 *     i/100), each 100-400 KiB in 2-4 segments of v2 batches of 1-8 ~100 B records appended as
 *     leader: half uncompressed, the rest lz4/zstd/snappy/gzip; a quarter from 1-3 idempotent
 *     producers; leader epochs bumped now and then (a restart of a one-broker cluster bumps
 *     them); one in 20 with a log start offset moved into its first segment (DeleteRecords).
 *     OFFSETS_PARTITIONS partitions __consumer_offsets-N of offset commits, consumer-group epoch
 *     records and offset tombstones made by the group coordinator's record helpers and serde,
 *     appended as COORDINATOR, for groups whose ids hash to N (as the coordinator places them);
 *     the even ones cleaned once by Kafka's Cleaner, as a broker's cleaner would have by then.
 *     Each log is then closed as LogManager.shutdown closes it, and the root files are written
 *     as a clean shutdown leaves them, with Kafka's writers: recovery points (every log, at its
 *     end), log start offsets (only logs whose start is above their first segment's base, as
 *     LogManager checkpoints them), high watermarks (every log, as ReplicaManager does), the
 *     cleaner's offsets (the cleaned logs; the file exists, empty, when none was cleaned, as
 *     LogCleanerManager creates it), meta.properties and .kafka_cleanshutdown. The same seed
 *     gives the same files (meta.properties' date comment aside).
 *
 *   load LOG_DIR clean|unclean
 *     Kafka's start-up load of the log dir, timed in-process (System.nanoTime around
 *     LogManager.loadLogs alone: no JVM start, no LogManager construction); prints
 *     "loaded N partitions in MS ms". unclean deletes .kafka_cleanshutdown first. Then every
 *     partition must be loaded, no log dir offline, and each log end offset equal to the high
 *     watermark the generator checkpointed (else exit 1). Run it on a copy: it deletes the
 *     marker, takes .lock, and recovery rewrites indexes.
 *
 * Why LogManager and not LogLoader per partition: 4.4.0's LogManager (a Java class in
 * kafka-storage) is built by kafka.log.LogManager.apply from a KafkaConfig, exactly as the
 * broker builds it, and loadLogs is public and starts no background thread (startup() would add
 * the retention/flush/checkpoint tasks and the cleaner threads, which are not loading). So what is
 * timed is the broker's own loading: the clean-shutdown marker and checkpoints read, one pool of
 * num.recovery.threads.per.data.dir (default 2) threads, UnifiedLog.create per partition with the
 * broker's default config and the offsets topic's overrides from a ConfigRepository, as KRaft
 * metadata gives them. The clock is Time.SYSTEM, as a broker's: producers idle for more than
 * producer.id.expiration.ms (the data is stamped from 2023) are dropped while loading, as they
 * would be on any broker restarted that much later.
 *
 * What unclean loading recovers: LogLoader recovers every segment from the one holding the
 * recovery point on. A clean shutdown checkpoints each log's end, so that is each log's active
 * segment (the one a crashed broker would not have flushed either: with the default flush
 * settings its last checkpointed recovery point is the active segment's base); with
 * recovery-point-offset-checkpoint removed every segment is recovered.
 */
public final class LogDirBench {
    private static final String[] WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima "
            + "mike november oscar papa quebec romeo sierra tango user order item price status ok error").split(" ");
    /** __consumer_offsets' topic configs as the group coordinator creates the topic. */
    private static final Map<String, String> OFFSETS_TOPIC = Map.of("cleanup.policy", "compact",
            "compression.type", "producer", "segment.bytes", "104857600");

    public static void main(String[] args) throws Exception {
        if (args.length == 5 && args[0].equals("generate")) {
            generate(new File(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]), Long.parseLong(args[4]));
        } else if (args.length == 3 && args[0].equals("load") && args[2].matches("clean|unclean")) {
            System.exit(load(new File(args[1]).getAbsoluteFile(), args[2].equals("unclean")));
        } else {
            System.err.println("usage: LogDirBench generate OUT_LOG_DIR PARTITIONS OFFSETS_PARTITIONS SEED"
                    + " | load LOG_DIR clean|unclean");
            System.exit(2);
        }
    }

    /** What a clean shutdown checkpoints for one log. */
    record Closed(TopicPartition tp, long recoveryPoint, long logStart, long firstBase, long hw) { }

    static void generate(File root, int partitions, int offsetsPartitions, long seed) throws Exception {
        Generate.deleteTree(root);
        root.mkdirs();
        // Each partition has its own clock and random stream (all start at FixedTime.START_MS, as
        // partitions written side by side), so four threads give the same files as one; more
        // threads than cores because most of the time is Kafka's fsyncs at each roll and close.
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Closed>> jobs = new ArrayList<>();
        Map<TopicPartition, Long> cleaned = new ConcurrentSkipListMap<>(
                Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        for (int p = 0; p < partitions; p++) {
            int i = p;
            jobs.add(pool.submit(() -> topicPartition(root, i, seed)));
        }
        for (int n = 0; n < offsetsPartitions; n++) {
            int i = n;
            jobs.add(pool.submit(() -> offsetsPartition(root, i, offsetsPartitions, partitions, seed, cleaned)));
        }
        List<Closed> closed = new ArrayList<>();
        for (Future<Closed> j : jobs) closed.add(j.get());
        pool.shutdown();
        Map<TopicPartition, Long> recovery = new LinkedHashMap<>(), start = new LinkedHashMap<>(), hw = new LinkedHashMap<>();
        for (Closed c : closed) {
            recovery.put(c.tp, c.recoveryPoint);
            hw.put(c.tp, c.hw);
            if (c.logStart > c.firstBase) start.put(c.tp, c.logStart);
        }
        LogDirFailureChannel ch = new LogDirFailureChannel(1);
        new OffsetCheckpointFile(new File(root, "recovery-point-offset-checkpoint"), ch).write(recovery);
        new OffsetCheckpointFile(new File(root, "log-start-offset-checkpoint"), ch).write(start);
        new OffsetCheckpointFile(new File(root, "replication-offset-checkpoint"), ch).write(hw);
        OffsetCheckpointFile cleaner = new OffsetCheckpointFile(new File(root, "cleaner-offset-checkpoint"), ch);
        if (!cleaned.isEmpty()) cleaner.write(cleaned);
        Random r = new Random(seed * 7 + 1);
        MetaProperties meta = new MetaProperties.Builder().setVersion(MetaPropertiesVersion.V1)
                .setClusterId(new Uuid(r.nextLong(), r.nextLong()).toString()).setNodeId(1)
                .setDirectoryId(new Uuid(r.nextLong() | 1, r.nextLong())).build();
        PropertiesUtils.writePropertiesFile(meta.toProperties(), new File(root, "meta.properties").getPath(), false);
        new CleanShutdownFileHandler(root.getPath()).write(42L);
    }

    static Uuid topicId(long seed, String topic) {
        Random r = new Random(seed * 131 + topic.hashCode());
        return new Uuid(r.nextLong(), r.nextLong());
    }

    /** Segment size for about `segments` segments of `target` bytes in all (internal.segment.bytes
     *  allows below segment.bytes' 1 MiB minimum, as the harness's other small cases do). */
    static Map<String, Object> config(long target, int segments, Map<String, ?> extra) {
        Map<String, Object> cfg = new LinkedHashMap<>(extra);
        cfg.put("internal.segment.bytes", (int) (target / segments) + 1024);
        return cfg;
    }

    static Closed topicPartition(File root, int p, long seed) throws Exception {
        FixedTime time = new FixedTime(FixedTime.START_MS);
        Random r = new Random(seed * 1_000_003L + p);
        String topic = String.format("topic-%02d", p % 100);
        long target = (100 + r.nextInt(301)) * 1024L;
        int c = r.nextInt(20);
        Compression codec = c < 10 ? Compression.NONE : c < 14 ? Compression.lz4().build() : c < 17 ? Compression.zstd().build()
                : c < 19 ? Compression.snappy().build() : Compression.gzip().build();
        int producers = r.nextInt(4) == 0 ? 1 + r.nextInt(3) : 0;
        int[] seq = new int[producers];
        int epoch = r.nextInt(3);
        File dir = new File(root, topic + "-" + (p / 100));
        UnifiedLog log = Kafka.open(dir, config(target, 2 + r.nextInt(3), Map.of()), time, 0, 0, false, topicId(seed, topic));
        while (log.size() < target) {
            if (r.nextInt(300) == 0) epoch++;
            List<SimpleRecord> recs = new ArrayList<>();
            for (int i = 1 + r.nextInt(8); i > 0; i--) {
                recs.add(new SimpleRecord(time.milliseconds(), ("key-" + r.nextInt(10_000)).getBytes(), text(r, 60 + r.nextInt(80))));
            }
            if (producers > 0) {
                int k = r.nextInt(producers);
                log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, codec, TimestampType.CREATE_TIME, 0,
                        100_000L + 4L * p + k, (short) 0, seq[k], false, epoch, recs), epoch);
                seq[k] += recs.size();
            } else {
                log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, codec, TimestampType.CREATE_TIME, 0, recs), epoch);
            }
            time.advance(1 + r.nextInt(20));
        }
        log.updateHighWatermark(log.logEndOffset());
        if (r.nextInt(20) == 0 && log.numberOfSegments() > 1) {   // DeleteRecords to the middle of the first segment
            long base = log.logSegments().get(0).baseOffset(), next = log.logSegments().get(1).baseOffset();
            log.maybeIncrementLogStartOffset(base + (next - base) / 2, LogStartOffsetIncrementReason.ClientRecordDeletion);
        }
        return close(log);
    }

    /** As LogManager.shutdown closes each log. */
    static Closed close(UnifiedLog log) {
        log.prepareActiveSegmentForClose();
        log.flush(true);
        Closed c = new Closed(log.topicPartition(), log.recoveryPoint(), log.logStartOffset(),
                log.logSegments().get(0).baseOffset(), log.highWatermark());
        log.close();
        return c;
    }

    static Closed offsetsPartition(File root, int n, int offsetsPartitions, int partitions, long seed,
                                   Map<TopicPartition, Long> cleaned) throws Exception {
        FixedTime time = new FixedTime(FixedTime.START_MS);
        Random r = new Random(seed * 1_000_003L + 900_000_000L + n);
        // Group ids the coordinator places on partition n: abs(hashCode) % offsets.topic.num.partitions.
        List<String> groups = new ArrayList<>();
        int groupCount = 4 + r.nextInt(9);
        for (int k = 0; groups.size() < groupCount; k++) {
            String g = "group-" + k;
            if (Utils.abs(g.hashCode()) % offsetsPartitions == n) groups.add(g);
        }
        long target = (100 + r.nextInt(301)) * 1024L;
        Map<String, Object> cfg = config(target, 2 + r.nextInt(3), OFFSETS_TOPIC);
        cfg.remove("segment.bytes");   // its 100 MiB is for the load; here the small segments
        File dir = new File(root, "__consumer_offsets-" + n);
        UnifiedLog log = Kafka.open(dir, cfg, time, 0, 0, false, topicId(seed, "__consumer_offsets"));
        GroupCoordinatorRecordSerde serde = new GroupCoordinatorRecordSerde();
        Map<String, Long> committed = new TreeMap<>();
        int epoch = r.nextInt(3), groupEpoch = 1;
        while (log.size() < target) {
            if (r.nextInt(300) == 0) epoch++;
            String g = groups.get(r.nextInt(groups.size()));
            List<CoordinatorRecord> recs = new ArrayList<>();
            if (r.nextInt(40) == 0) {
                recs.add(GroupCoordinatorRecordHelpers.newConsumerGroupEpochRecord(g, groupEpoch++, r.nextLong()));
            } else {
                // One member's commit: 1-8 partitions of one of the (up to 3) topics the group reads.
                int topics = Math.min(100, Math.max(1, partitions));
                int t = (Utils.abs(g.hashCode()) + r.nextInt(3)) % topics;
                String topic = String.format("topic-%02d", t);
                int perTopic = Math.max(1, (partitions - t + 99) / 100);
                int first = r.nextInt(perTopic), count = 1 + r.nextInt(8);
                for (int i = 0; i < count && first + i < perTopic; i++) {
                    String key = g + "/" + topic + "/" + (first + i);
                    if (r.nextInt(100) == 0) {   // the offset expired
                        recs.add(GroupCoordinatorRecordHelpers.newOffsetCommitTombstoneRecord(g, topic, first + i));
                        committed.remove(key);
                        continue;
                    }
                    long offset = committed.merge(key, 1L + r.nextInt(500), Long::sum);
                    recs.add(GroupCoordinatorRecordHelpers.newOffsetCommitRecord(g, topic, first + i,
                            new OffsetAndMetadata(offset, OptionalInt.of(epoch), "", time.milliseconds(), OptionalLong.empty(),
                                    topicId(seed, topic))));
                }
            }
            List<SimpleRecord> out = new ArrayList<>();
            for (CoordinatorRecord cr : recs) out.add(new SimpleRecord(time.milliseconds(), serde.serializeKey(cr), serde.serializeValue(cr)));
            log.appendAsLeader(Kafka.batch(RecordBatch.MAGIC_VALUE_V2, Compression.NONE, TimestampType.CREATE_TIME, 0, out),
                    epoch, AppendOrigin.COORDINATOR);
            time.advance(1 + r.nextInt(20));
        }
        log.updateHighWatermark(log.logEndOffset());
        if (n % 2 == 0) {   // one round of Kafka's own cleaner, as CompactBench runs it
            long now = time.milliseconds();
            Cleaner cleaner = new Cleaner(0, new SkimpyOffsetMap(4 << 20), 262_144, 1_048_588, 0.9,
                    new Throttler(Double.MAX_VALUE, Long.MAX_VALUE, "cleaner-io", "bytes", time), time, tp -> { });
            long[] o = KsegCleanerBridge.cleanableOffsets(log, Optional.empty(), now);
            LogToClean c = new LogToClean(log, o[0], o[1], false);
            if (c.firstDirtyOffset() < c.firstUncleanableOffset()) cleaned.put(log.topicPartition(), cleaner.doClean(c, now).getKey());
        }
        return close(log);
    }

    private static byte[] text(Random r, int n) {
        StringBuilder sb = new StringBuilder(n + 16);
        while (sb.length() < n) sb.append(WORDS[r.nextInt(WORDS.length)]).append(' ');
        sb.setLength(n);
        return sb.toString().getBytes();
    }

    static int load(File root, boolean unclean) throws Exception {
        if (unclean) Files.deleteIfExists(new File(root, CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME).toPath());
        else if (!new CleanShutdownFileHandler(root.getPath()).exists()) throw new IllegalStateException("no clean shutdown marker in " + root);
        // The generator's high watermarks are the log end offsets (read before Kafka touches anything).
        Map<TopicPartition, Long> expected = new OffsetCheckpointFile(new File(root, "replication-offset-checkpoint"),
                new LogDirFailureChannel(1)).read();
        Set<String> topics = new HashSet<>();
        int dirs = 0;
        for (File d : root.listFiles(File::isDirectory)) {
            topics.add(UnifiedLog.parseTopicPartitionName(d).topic());
            dirs++;
        }
        // A one-node KRaft broker's settings, as tests/kafka/lib.sh's props(); every log setting the default.
        Properties props = new Properties();
        props.putAll(Map.of("process.roles", "broker,controller", "node.id", "1",
                "controller.quorum.voters", "1@127.0.0.1:9093", "listeners", "PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093",
                "controller.listener.names", "CONTROLLER", "log.dirs", root.getPath()));
        kafka.server.KafkaConfig config = kafka.server.KafkaConfig.fromProps(props);
        ConfigRepository repo = resource -> {
            Properties p = new Properties();
            if (resource.type() == ConfigResource.Type.TOPIC && resource.name().equals("__consumer_offsets")) p.putAll(OFFSETS_TOPIC);
            return p;
        };
        KafkaScheduler scheduler = new KafkaScheduler(config.getInt("background.threads"));
        scheduler.startup();
        LogDirFailureChannel channel = new LogDirFailureChannel(1);
        LogManager manager = kafka.log.LogManager.apply(config, Set.of(), repo, scheduler, Time.SYSTEM, new BrokerTopicStats(false), channel);
        LogConfig defaults = manager.currentDefaultConfig();
        Map<String, LogConfig> overrides = manager.fetchTopicConfigOverrides(defaults, topics);
        long start = System.nanoTime();
        manager.loadLogs(defaults, overrides, log -> false);
        long ms = (System.nanoTime() - start) / 1_000_000;
        int wrong = 0;
        for (UnifiedLog log : manager.allLogs()) {
            Long want = expected.get(log.topicPartition());
            if (want == null || want != log.logEndOffset()) {
                System.err.println(log.topicPartition() + ": log end offset " + log.logEndOffset() + ", expected " + want);
                wrong++;
            }
        }
        System.out.println("loaded " + manager.allLogs().size() + " partitions in " + ms + " ms");
        if (manager.hasOfflineLogDirs() || manager.allLogs().size() != dirs || wrong > 0) {
            System.err.println("LogDirBench: " + dirs + " partition dirs, " + manager.allLogs().size() + " loaded, "
                    + wrong + " with an unexpected log end offset" + (manager.hasOfflineLogDirs() ? ", log dir offline" : ""));
            return 1;
        }
        return 0;
    }
}
