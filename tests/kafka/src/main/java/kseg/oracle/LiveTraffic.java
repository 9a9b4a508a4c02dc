// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.internals.AppInfoParser;

/** Real client traffic against a running broker (tests/kafka/live-broker.sh starts it): the
 *  Java producer with each codec, idempotent and transactional producers (commits, aborts,
 *  offsets sent to a transaction), a classic and a KIP-848 consumer group committing, a
 *  compacted topic for the live cleaner, DeleteRecords. Writes what it did to --info.
 *  Usage: LiveTraffic --bootstrap HOST:PORT --info FILE [--seed N] */
public final class LiveTraffic {
    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};

    public static void main(String[] args) throws Exception {
        String bootstrap = null;
        File info = null;
        long seed = 1;
        String flood = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--bootstrap" -> bootstrap = args[++i];
                case "--info" -> info = new File(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--flood" -> flood = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        if (flood != null && bootstrap != null) {
            flood(bootstrap, flood, new Random(seed));
            return;
        }
        if (bootstrap == null || info == null) throw new IllegalArgumentException("--bootstrap and --info are required");
        Random rnd = new Random(seed);
        List<String> steps = new ArrayList<>();
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("case", "live-broker");
        doc.put("kafka_version", AppInfoParser.getVersion());
        doc.put("java_version", System.getProperty("java.version"));
        doc.put("seed", seed);
        doc.put("made_by", "tests/kafka/live-broker.sh: a Kafka broker process (KRaft, combined broker and controller, "
                + "loopback) and the clients of kseg.oracle.LiveTraffic");

        Properties ap = new Properties();
        ap.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(ap)) {
            List<NewTopic> topics = new ArrayList<>();
            for (String codec : CODECS) topics.add(new NewTopic("codec-" + codec, 1, (short) 1));
            // A topic setting the broker keeps in its metadata log (kseg reads it there).
            topics.add(new NewTopic("idempotent", 1, (short) 1).configs(Map.of("index.interval.bytes", "1024")));
            topics.add(new NewTopic("ledger", 1, (short) 1));
            // Rolls by time so the live cleaner has inactive segments to clean.
            topics.add(new NewTopic("accounts", 1, (short) 1).configs(Map.of("cleanup.policy", "compact",
                    "segment.ms", "1500", "min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "0")));
            admin.createTopics(topics).all().get();
            steps.add("created codec-{none,gzip,snappy,lz4,zstd}, idempotent (index.interval.bytes 1024), ledger, "
                    + "accounts (compact, segment.ms 1500)");

            // Plain producers, one per codec, without idempotence (pid -1).
            for (String codec : CODECS) {
                try (KafkaProducer<byte[], byte[]> p = producer(bootstrap, Map.of("compression.type", codec,
                        "enable.idempotence", "false", "acks", "1", "linger.ms", "20"))) {
                    for (int i = 0; i < 400; i++) p.send(record(rnd, "codec-" + codec, i, 40));
                    p.flush();
                }
            }
            steps.add("400 records to each codec-* topic, Java producer, enable.idempotence=false, linger.ms 20");

            // The default producer: idempotent, with headers.
            try (KafkaProducer<byte[], byte[]> p = producer(bootstrap, Map.of("linger.ms", "5"))) {
                // A flush every 10 records: 30 batches, so that the topic's index interval shows.
                for (int i = 0; i < 300; i++) {
                    p.send(record(rnd, "idempotent", i, 40));
                    if (i % 10 == 9) p.flush();
                }
            }
            steps.add("300 records to idempotent, default Java producer (idempotent), a flush every 10");

            // Transactions (transaction.version 2, 4.4's default), with offsets sent to them.
            try (KafkaProducer<byte[], byte[]> p = producer(bootstrap, Map.of("transactional.id", "ledger-writer",
                    "linger.ms", "5"))) {
                p.initTransactions();
                for (int t = 0; t < 8; t++) {
                    p.beginTransaction();
                    for (int i = 0; i < 20; i++) p.send(record(rnd, "ledger", i, 40));
                    for (int i = 0; i < 5; i++) p.send(keyed(rnd, "accounts", 12));  // a compacted topic takes keyed records only
                    p.sendOffsetsToTransaction(Map.of(new TopicPartition("codec-none", 0), new OffsetAndMetadata(10L * t)),
                            new org.apache.kafka.clients.consumer.ConsumerGroupMetadata("ledger-readers"));
                    if (t % 3 == 1) p.abortTransaction();
                    else p.commitTransaction();
                }
            }
            steps.add("8 transactions by transactional.id ledger-writer (ledger and accounts, offsets sent for group "
                    + "ledger-readers), transaction t aborted when t % 3 == 1");

            // A compacted topic written in rounds with the same keys; segment.ms rolls it.
            try (KafkaProducer<byte[], byte[]> p = producer(bootstrap, Map.of("linger.ms", "5"))) {
                for (int round = 0; round < 4; round++) {
                    for (int i = 0; i < 150; i++) {
                        byte[] key = ("account-" + rnd.nextInt(25)).getBytes(StandardCharsets.UTF_8);
                        byte[] value = rnd.nextInt(7) == 0 ? null : text(rnd, 20 + rnd.nextInt(40));
                        p.send(new ProducerRecord<>("accounts", key, value));
                    }
                    p.flush();
                    Thread.sleep(1700);
                }
            }
            steps.add("4 rounds of 150 records to accounts (25 keys, 1 in 7 a tombstone), 1.7 s apart");

            // Consumer groups: a classic one and a KIP-848 one, committing as they go.
            consume(bootstrap, "classic-readers", "classic", "codec-gzip");
            consume(bootstrap, "modern-readers", "consumer", "codec-zstd");
            steps.add("group classic-readers (group.protocol classic) read codec-gzip, group modern-readers "
                    + "(group.protocol consumer, KIP-848) read codec-zstd, committing after each poll");

            admin.deleteRecords(Map.of(new TopicPartition("codec-lz4", 0), RecordsToDelete.beforeOffset(100))).all().get();
            steps.add("DeleteRecords codec-lz4-0 before offset 100");

            // SCRAM credentials: USER_SCRAM_CREDENTIAL_RECORD, then REMOVE_USER_SCRAM_CREDENTIAL_RECORD.
            admin.alterUserScramCredentials(List.of(
                    new org.apache.kafka.clients.admin.UserScramCredentialUpsertion("alice",
                            new org.apache.kafka.clients.admin.ScramCredentialInfo(
                                    org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_256, 4096), "alice-secret"),
                    new org.apache.kafka.clients.admin.UserScramCredentialUpsertion("bob",
                            new org.apache.kafka.clients.admin.ScramCredentialInfo(
                                    org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_512, 8192), "bob-secret"))).all().get();
            admin.alterUserScramCredentials(List.of(new org.apache.kafka.clients.admin.UserScramCredentialDeletion("bob",
                    org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_512))).all().get();
            steps.add("SCRAM credentials for alice (SHA-256) and bob (SHA-512), then bob's deleted");

            // Producer P's batch overwritten by producer Q in the same segment, then a roll, whose
            // snapshot names P's batch as P's last; P writes again in the new segment, so the
            // cleaner may drop the overwritten batch the snapshot names.
            try (KafkaProducer<byte[], byte[]> pp = producer(bootstrap, Map.of());
                 KafkaProducer<byte[], byte[]> q = producer(bootstrap, Map.of())) {
                for (int i = 0; i < 25; i++) pp.send(new ProducerRecord<>("accounts", key(i), text(rnd, 16)));
                pp.flush();
                for (int i = 0; i < 25; i++) q.send(new ProducerRecord<>("accounts", key(i), text(rnd, 16)));
                q.flush();
                Thread.sleep(1700);
                for (int i = 0; i < 6; i++) {  // one record a second keeps rolling; the cleaner runs meanwhile
                    pp.send(new ProducerRecord<>("accounts", key(100 + i), text(rnd, 16)));
                    pp.flush();
                    Thread.sleep(1000);
                }
            }
            steps.add("accounts: producer P wrote keys account-0..24, producer Q the same keys after it, 1.7 s, "
                    + "then P one record a second for 6 s while the log cleaner runs");

            // Retention: a topic rolled every second whose old segments the broker deletes.
            admin.createTopics(List.of(new NewTopic("retained", 1, (short) 1).configs(Map.of("segment.ms", "1000",
                    "retention.ms", "2500", "file.delete.delay.ms", "60000")))).all().get();
            try (KafkaProducer<byte[], byte[]> p = producer(bootstrap, Map.of())) {
                for (int i = 0; i < 6; i++) {
                    for (int k = 0; k < 20; k++) p.send(record(rnd, "retained", k, 40));
                    p.flush();
                    Thread.sleep(1100);
                }
            }
            steps.add("retained (segment.ms 1000, retention.ms 2500): 6 rounds of 20 records 1.1 s apart, "
                    + "older segments deleted by time retention (log.retention.check.interval.ms 1000)");
        }
        doc.put("steps", steps);
        ObjectMapper m = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        m.writeValue(info, doc);
    }

    /** Produces as fast as it can until killed (the broker is killed under it): the default
     *  idempotent producer, lz4, batches up to 16 KiB; a progress line every 1000 records. */
    static void flood(String bootstrap, String topic, Random rnd) {
        try (KafkaProducer<byte[], byte[]> p = producer(bootstrap, Map.of("linger.ms", "1", "batch.size", "16384",
                "compression.type", "lz4", "delivery.timeout.ms", "600000"))) {
            for (long i = 0; ; i++) {
                p.send(record(rnd, topic, (int) i, 1000));
                if (i % 1_000 == 0) System.err.println("flood: " + i + " records sent");
            }
        }
    }

    static KafkaProducer<byte[], byte[]> producer(String bootstrap, Map<String, String> extra) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.putAll(extra);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static ProducerRecord<byte[], byte[]> record(Random rnd, String topic, int n, int keys) {
        byte[] key = rnd.nextInt(5) == 0 ? null : ("key-" + rnd.nextInt(keys)).getBytes(StandardCharsets.UTF_8);
        byte[] value = rnd.nextInt(9) == 0 ? null : text(rnd, 10 + rnd.nextInt(150));
        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, key, value);
        if (rnd.nextInt(3) == 0) r.headers().add(new RecordHeader("trace", ("t-" + n).getBytes(StandardCharsets.UTF_8)));
        return r;
    }

    static byte[] key(int n) { return ("account-" + n).getBytes(StandardCharsets.UTF_8); }

    static ProducerRecord<byte[], byte[]> keyed(Random rnd, String topic, int keys) {
        return new ProducerRecord<>(topic, ("account-" + rnd.nextInt(keys)).getBytes(StandardCharsets.UTF_8),
                text(rnd, 10 + rnd.nextInt(40)));
    }

    static byte[] text(Random rnd, int len) {
        String words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike ";
        StringBuilder sb = new StringBuilder(len);
        while (sb.length() < len) sb.append(words, rnd.nextInt(words.length()), words.length());
        return sb.substring(0, len).getBytes(StandardCharsets.UTF_8);
    }

    static void consume(String bootstrap, String group, String protocol, String topic) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("group.protocol", protocol);
        p.put("auto.offset.reset", "earliest");
        p.put("enable.auto.commit", "false");
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.subscribe(List.of(topic));
            int seen = 0;
            long deadline = System.currentTimeMillis() + 30_000;
            while (seen < 400 && System.currentTimeMillis() < deadline) {
                ConsumerRecords<byte[], byte[]> rs = c.poll(Duration.ofMillis(500));
                seen += rs.count();
                if (!rs.isEmpty()) c.commitSync();
            }
            if (seen < 400) throw new IllegalStateException(group + " read " + seen + " of 400 records of " + topic);
        }
    }
}
