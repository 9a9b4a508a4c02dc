// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.internals.AppInfoParser;

/** One generated log dir: its clock, its seeded randomness and its provenance (case.json). */
final class Case {
    final String name;
    final File dir;
    final long seed;
    final FixedTime time = new FixedTime(FixedTime.START_MS);
    final Random rnd;
    final Map<String, Object> info = new LinkedHashMap<>();
    private final List<Map<String, Object>> partitions = new ArrayList<>();
    private final List<String> steps = new ArrayList<>();

    Case(String name, File dir, long seed) {
        this.name = name;
        this.dir = dir;
        this.seed = seed;
        // Each case draws from its own stream, so adding a case never changes another one.
        this.rnd = new Random(seed * 31 + name.hashCode());
        info.put("case", name);
        info.put("kafka_version", AppInfoParser.getVersion());
        info.put("java_version", System.getProperty("java.version"));
        info.put("seed", seed);
        info.put("clock_start_ms", FixedTime.START_MS);
    }

    /** A topic id derived from the seed and the topic name, so partition.metadata is reproducible. */
    Uuid topicId(String topic) {
        Random r = new Random(seed * 131 + topic.hashCode());
        return new Uuid(r.nextLong(), r.nextLong());
    }

    File partitionDir(String topic, int partition, Map<String, ?> config) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("dir", topic + "-" + partition);
        p.put("topic_config", new java.util.TreeMap<>(config));
        partitions.add(p);
        return new File(dir, topic + "-" + partition);
    }

    void step(String what) { steps.add(what); }

    // ---- record content: deterministic given the seed ----

    byte[] text(int len) {
        String words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike ";
        StringBuilder sb = new StringBuilder(len);
        while (sb.length() < len) sb.append(words, rnd.nextInt(words.length()), words.length());
        return sb.substring(0, len).getBytes(StandardCharsets.UTF_8);
    }

    byte[] key(int n) { return ("key-" + n).getBytes(StandardCharsets.UTF_8); }

    /** A mixed record: mostly keyed, some null keys, some null values, some headers. */
    SimpleRecord record(long timestamp, int n, boolean headers) {
        byte[] key = rnd.nextInt(5) == 0 ? null : key(rnd.nextInt(40));
        byte[] value = rnd.nextInt(8) == 0 ? null : text(10 + rnd.nextInt(120));
        Header[] hs = new Header[0];
        if (headers && rnd.nextInt(3) == 0) {
            hs = new Header[1 + rnd.nextInt(2)];
            for (int i = 0; i < hs.length; i++)
                hs[i] = new RecordHeader("h" + i, rnd.nextInt(6) == 0 ? null : ("v" + n + "." + i).getBytes(StandardCharsets.UTF_8));
        }
        return new SimpleRecord(timestamp, key, value, hs);
    }

    /** `len` bytes that mix ASCII runs with what UTF-8 decoders treat differently: valid 2-4
     *  byte sequences, stray continuation bytes, truncated sequences, overlongs, surrogates,
     *  code points past U+10FFFF, bytes F5-FF, control bytes and a lead byte cut by the end. */
    byte[] oddBytes(int len) {
        byte[][] pieces = {
            {(byte) 0xc3, (byte) 0xa9}, {(byte) 0xe2, (byte) 0x82, (byte) 0xac},
            {(byte) 0xf0, (byte) 0x9f, (byte) 0x98, (byte) 0x80}, {(byte) 0x80}, {(byte) 0xbf, (byte) 0x80},
            {(byte) 0xc3}, {(byte) 0xe2, (byte) 0x82}, {(byte) 0xf0, (byte) 0x9f, (byte) 0x98},
            {(byte) 0xc0, (byte) 0xaf}, {(byte) 0xe0, (byte) 0x80, (byte) 0xaf}, {(byte) 0xf0, (byte) 0x80, (byte) 0x80, (byte) 0xaf},
            {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xed, (byte) 0xbf, (byte) 0xbf},
            {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xf5}, {(byte) 0xff}, {(byte) 0xfe},
            {0x00}, {0x0a}, {0x0d}, {0x1b}, {0x7f}, {(byte) 0xef, (byte) 0xbb, (byte) 0xbf},
        };
        byte[] out = new byte[len];
        int at = 0;
        while (at < len) {
            if (rnd.nextInt(3) == 0) {
                byte[] p = pieces[rnd.nextInt(pieces.length)];
                for (int i = 0; i < p.length && at < len; i++) out[at++] = p[i];  // cut at the end: truncated
            } else {
                int run = rnd.nextInt(rnd.nextBoolean() ? 8 : 80);
                for (int i = 0; i < run && at < len; i++) out[at++] = (byte) (0x20 + rnd.nextInt(0x5f));
            }
        }
        return out;
    }

    /** Text of `len` chars, ASCII and beyond (Latin-1, CJK, an emoji's surrogate pair). */
    String oddText(int len) {
        String[] pieces = {"a", "Z", "-", "é", "ß", "€", "日本", "😀", "\u0000", "ñ"};
        StringBuilder sb = new StringBuilder();
        while (sb.length() < len) sb.append(pieces[rnd.nextInt(pieces.length)]);
        return sb.toString();
    }

    void writeInfo() throws IOException {
        info.put("partitions", partitions);
        info.put("steps", steps);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(new File(dir, "case.json"), info);
    }
}
