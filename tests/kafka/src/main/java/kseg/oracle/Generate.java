// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/** Writes the corpus: one log dir per case under --out, each made by Kafka's own log code.
 *  Usage: Generate --out DIR [--seed N] [--cases a,b,...] [--list] */
public final class Generate {
    interface Body { void run(Case c) throws Exception; }

    static final Map<String, Body> CASES = new LinkedHashMap<>();
    static void add(String name, Body body) { CASES.put(name, body); }

    public static void main(String[] args) throws Exception {
        File out = null;
        long seed = 1;
        List<String> only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--out" -> out = new File(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--cases" -> only = List.of(args[++i].split(","));
                case "--list" -> { CASES.keySet().forEach(System.out::println); return; }
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (out == null) throw new IllegalArgumentException("--out DIR is required");
        for (String name : only == null ? new ArrayList<>(CASES.keySet()) : only) {
            Body body = CASES.get(name);
            if (body == null) throw new IllegalArgumentException("unknown case " + name);
            File dir = new File(out, name);
            deleteTree(dir);
            Files.createDirectories(dir.toPath());
            Case c = new Case(name, dir, seed);
            body.run(c);
            c.writeInfo();
            System.out.println("generated " + name);
        }
    }

    static List<File> sortedFiles(File dir) {
        File[] fs = dir.listFiles(File::isFile);
        if (fs == null) return List.of();
        java.util.Arrays.sort(fs);
        return List.of(fs);
    }

    static void deleteTree(File f) throws IOException {
        if (!f.exists()) return;
        try (var paths = Files.walk(f.toPath())) {
            for (var p : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }

    // ------------------------------------------------------------------ cases

    static {
        for (String codec : List.of("none", "gzip", "snappy", "lz4", "zstd"))
            add("v2-" + codec, c -> basic(c, RecordBatch.MAGIC_VALUE_V2, codec));
        for (String codec : List.of("none", "gzip", "snappy", "lz4")) {
            add("v1-" + codec, c -> basic(c, RecordBatch.MAGIC_VALUE_V1, codec));
            add("v0-" + codec, c -> basic(c, RecordBatch.MAGIC_VALUE_V0, codec));
        }
        add("mixed-magic", MoreCases::mixedMagic);
        add("idempotent", MoreCases::idempotent);
        add("transactions", MoreCases::transactions);
        add("transactions-tv2", MoreCases::transactionsTv2);
        add("compacted", MoreCases::compacted);
        add("cleaned-transactions", MoreCases::cleanedTransactions);
        add("log-append-time", MoreCases::logAppendTime);
        add("create-time-out-of-order", MoreCases::outOfOrderTimestamps);
        add("active-segment", MoreCases::activeSegment);
        add("follower-multi-batch", MoreCases::followerMultiBatch);
        add("leader-epochs-retention", MoreCases::leaderEpochsAndRetention);
        add("empty", MoreCases::empty);
        add("large-at-limit", MoreCases::largeAtLimit);
        add("large-compressed", MoreCases::largeCompressed);
        add("binary-values", MoreCases::binaryValues);
        add("nested-batches", MoreCases::nestedBatches);
        add("consumer-offsets", InternalTopics::consumerOffsets);
        add("transaction-state", InternalTopics::transactionState);
        add("cluster-metadata", InternalTopics::clusterMetadata);
        add("record-types", RecordTypes::recordTypes);
        add("unknown-tags", RecordTypes::unknownTags);
        add("preallocated-active", Recipes::preallocated);
        add("broker-log-dir", Recipes::brokerLogDir);
        add("torn-tail", Recipes::tornTail);
        add("torn-header", Recipes::tornHeader);
        add("zero-tail", Recipes::zeroTail);
        add("zero-appended", Recipes::zeroAppended);
        add("corrupt-size", Recipes::corruptSize);
        add("crc-mismatch", Recipes::crcMismatch);
    }

    /** Kafka 4.4 keeps the active segment's indexes preallocated to segment.index.bytes even
     *  after a clean close (only a roll trims them), so the 10 MiB default would put 20 MiB of
     *  zeros in every case. 4096 holds 512 offset / 341 time entries, far more than needed. */
    static final int SMALL_INDEX_BYTES = 4096;

    static Map<String, Object> topicConfig(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    /** Multi-record batches with keys, null keys, null values and (v2) headers, over several
     *  small segments with a small index interval so the indexes have many entries. */
    static void basic(Case c, byte magic, String codec) throws Exception {
        String topic = "orders";
        Map<String, Object> cfg = topicConfig("internal.segment.bytes", 8192, "index.interval.bytes", 256,
                "segment.index.bytes", SMALL_INDEX_BYTES, "compression.type", "producer");
        File pdir = c.partitionDir(topic, 0, cfg);
        Compression compression = Compression.of(codec).build();
        c.info.put("producer", Generate.topicConfig("magic", magic, "compression", codec, "acks", "n/a (in-process append)"));
        UnifiedLog log = Kafka.open(pdir, cfg, c.time, 0, 0, false, c.topicId(topic));
        int n = 0;
        for (int b = 0; b < 60; b++) {
            int count = 1 + c.rnd.nextInt(8);
            List<SimpleRecord> recs = new ArrayList<>();
            for (int i = 0; i < count; i++) recs.add(c.record(c.time.milliseconds() - c.rnd.nextInt(5), n++, magic >= 2));
            if (magic >= RecordBatch.MAGIC_VALUE_V2) {
                log.appendAsLeader(Kafka.batch(magic, compression, TimestampType.CREATE_TIME, 0, recs), 0);
            } else {
                // 4.x brokers no longer accept old formats from producers; a follower append
                // stores the batch exactly as built, as an old broker would have.
                MemoryRecords batch = Kafka.batch(magic, compression, TimestampType.CREATE_TIME, log.logEndOffset(), recs);
                log.appendAsFollower(batch, 0);
            }
            c.time.advance(1 + c.rnd.nextInt(50));
        }
        c.step("appended 60 batches of 1-8 records (magic " + magic + ", " + codec + ")");
        log.updateHighWatermark(log.logEndOffset());
        log.close();
        c.step("closed the log (clean shutdown)");
    }
}
