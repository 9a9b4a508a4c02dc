// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/** A real Java consumer reading partition 0 of topics from a running broker, for
 *  tests/kafka/excise-broker.sh.
 *  Usage: Consume --bootstrap HOST:PORT --out DIR TOPIC...
 *    reads each topic from its beginning to its end, read_uncommitted (to the high watermark)
 *    and read_committed (to the last stable offset), into DIR/java-LEVEL/TOPIC: a line per record,
 *    "offset timestamp key value headers" (key and value base64, "-" for null; headers
 *    name:base64 joined by ",").
 *  Usage: Consume --bootstrap HOST:PORT --numbers GROUP TOPIC
 *    an application whose values must be decimal numbers (a deserializer that throws on any
 *    other value, as a JSON or Avro one does on bytes it cannot read): resumes from the group's
 *    committed offset, commits after each record; prints "read N" and the offsets read; on a
 *    record it cannot deserialize prints "poison at offset N" and exits 3, as such a consumer
 *    stops (KAFKA-8722). */
public final class Consume {
    public static void main(String[] args) throws Exception {
        String bootstrap = null, group = null;
        Path out = null;
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < args.length; ++i) {
            switch (args[i]) {
                case "--bootstrap" -> bootstrap = args[++i];
                case "--out" -> out = Path.of(args[++i]);
                case "--numbers" -> group = args[++i];
                default -> topics.add(args[i]);
            }
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("enable.auto.commit", "false");
        if (group != null) {
            System.exit(numbers(p, group, topics.get(0)));
        }
        for (String level : List.of("read_uncommitted", "read_committed")) {
            p.put("isolation.level", level);
            read(p, out.resolve("java-" + level), topics);
        }
    }

    static void read(Properties p, Path out, List<String> topics) throws Exception {
        Files.createDirectories(out);
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            for (String topic : topics) {
                TopicPartition tp = new TopicPartition(topic, 0);
                c.assign(List.of(tp));
                c.seekToBeginning(List.of(tp));
                long end = c.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
                try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out.resolve(topic)))) {
                    long deadline = System.currentTimeMillis() + 60_000;
                    while (c.position(tp) < end) {
                        if (System.currentTimeMillis() > deadline)
                            throw new IllegalStateException(topic + ": at " + c.position(tp) + " of " + end + " after a minute");
                        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) w.println(line(r));
                    }
                }
            }
        }
    }

    static String b64(byte[] b) {
        return b == null ? "-" : Base64.getEncoder().encodeToString(b);
    }

    static String line(ConsumerRecord<?, byte[]> r) {
        StringBuilder h = new StringBuilder();
        for (Header x : r.headers()) {
            if (h.length() > 0) h.append(',');
            h.append(x.key()).append(':').append(b64(x.value()));
        }
        return r.offset() + " " + r.timestamp() + " " + b64((byte[]) r.key()) + " " + b64(r.value()) + " " + h;
    }

    /** Values that are decimal numbers, or the consumer stops. */
    static final class Numbers implements Deserializer<Long> {
        @Override
        public Long deserialize(String topic, byte[] data) {
            String s = new String(data, StandardCharsets.UTF_8);
            try {
                return Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new SerializationException("not a number: " + s, e);
            }
        }
    }

    static int numbers(Properties p, String group, String topic) {
        p.put("group.id", group);
        p.put("auto.offset.reset", "earliest");
        TopicPartition tp = new TopicPartition(topic, 0);
        int read = 0;
        StringBuilder offsets = new StringBuilder();
        try (KafkaConsumer<byte[], Long> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new Numbers())) {
            c.assign(List.of(tp));
            OffsetAndMetadata committed = c.committed(java.util.Set.of(tp), Duration.ofSeconds(30)).get(tp);
            if (committed != null) c.seek(tp, committed.offset());
            else c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            long deadline = System.currentTimeMillis() + 60_000;
            while (c.position(tp) < end && System.currentTimeMillis() < deadline) {
                try {
                    for (ConsumerRecord<byte[], Long> r : c.poll(Duration.ofMillis(200))) {
                        ++read;
                        offsets.append(' ').append(r.offset());
                        c.commitSync(Map.of(tp, new OffsetAndMetadata(r.offset() + 1)));
                    }
                } catch (RecordDeserializationException e) {
                    System.out.println("read " + read + offsets);
                    System.out.println("poison at offset " + e.offset() + ": " + e.getCause().getMessage());
                    return 3;
                }
            }
            System.out.println("read " + read + offsets);
            return c.position(tp) < end ? 1 : 0;
        }
    }
}
