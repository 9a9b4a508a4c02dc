// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * The oracle for kseg-reindex: Kafka 4.4's own index rebuild. For every partition of every
 * case it copies the partition directory, deletes every .index and .timeindex, and opens it
 * with UnifiedLog.create after a clean shutdown, so LogLoader recovers exactly the segments
 * whose .index is missing (all of them) with LogSegment.recover, producer state included,
 * and deletes nothing else. It then writes, per segment, the index bytes up to the entry
 * count Kafka holds (the active segment's files are re-extended to segment.index.bytes at
 * load; trimming is what a roll or LogSegment.recover leaves) and the recovered .log size.
 *
 * Usage: RebuildIndexes CORPUS_DIR OUT_DIR [CASE...]
 * Output: OUT_DIR/CASE/PARTITION/NNN.index, NNN.timeindex, NNN.txnindex (when Kafka has one)
 * and OUT_DIR/CASE/PARTITION/segments.txt ("base log_size_after_recovery" per line).
 */
public final class RebuildIndexes {
    public static void main(String[] args) throws Exception {
        eachPartition(Path.of(args[0]), Path.of(args[1]), Arrays.asList(args).subList(2, args.length),
                RebuildIndexes::rebuild);
    }

    interface PartitionJob {
        void run(Path src, Map<String, Object> topicConfig, Path outDir) throws Exception;
    }

    /** Runs `job` on every partition of the named cases of a corpus (all when none is named),
     *  with the topic config its case.json gives and OUT/CASE/PARTITION as its output dir. */
    static void eachPartition(Path corpus, Path out, List<String> only, PartitionJob job) throws Exception {
        List<String> cases = !only.isEmpty() ? only : Arrays.stream(corpus.toFile().list()).sorted().toList();
        for (String c : cases) {
            File json = corpus.resolve(c).resolve("case.json").toFile();
            if (!json.exists()) continue;
            for (JsonNode p : new ObjectMapper().readTree(json).get("partitions")) {
                Path src = corpus.resolve(c).resolve(p.get("dir").asText());
                if (!Files.isDirectory(src)) continue;
                Map<String, Object> config = new LinkedHashMap<>();
                p.get("topic_config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
                job.run(src, config, out.resolve(c).resolve(src.getFileName()));
            }
        }
    }

    static void rebuild(Path src, Map<String, Object> config, Path outDir) throws Exception {
        Path tmp = Files.createTempDirectory("kseg-rebuild");
        try {
            Path copy = tmp.resolve(src.getFileName().toString());
            Files.createDirectories(copy);
            Tree.reset(src, copy);
            for (File f : copy.toFile().listFiles())
                if (f.getName().endsWith(".index") || f.getName().endsWith(".timeindex")) Files.delete(f.toPath());
            TopicPartition tp = UnifiedLog.parseTopicPartitionName(src.toFile());
            long logStart = LoadCheck.checkpoint(src.toFile(), "log-start-offset-checkpoint", tp, 0L);
            long recoveryPoint = LoadCheck.checkpoint(src.toFile(), "recovery-point-offset-checkpoint", tp, 0L);
            UnifiedLog log = Kafka.open(copy.toFile(), config, new FixedTime(FixedTime.START_MS), logStart,
                    recoveryPoint, true, null);
            Files.createDirectories(outDir);
            StringBuilder segments = new StringBuilder();
            for (LogSegment s : log.logSegments()) {
                String base = String.format("%020d", s.baseOffset());
                s.flush();
                write(s.offsetIndex().file(), s.offsetIndex().entries() * 8, outDir.resolve(base + ".index"));
                write(s.timeIndex().file(), s.timeIndex().entries() * 12, outDir.resolve(base + ".timeindex"));
                File txn = s.txnIndex().file();
                if (txn.exists()) Files.copy(txn.toPath(), outDir.resolve(base + ".txnindex"));
                segments.append(s.baseOffset()).append(' ').append(s.size()).append('\n');
            }
            Files.writeString(outDir.resolve("segments.txt"), segments.toString());
            log.close();
        } finally {
            Generate.deleteTree(tmp.toFile());
        }
    }

    static void write(File from, int bytes, Path to) throws Exception {
        byte[] all = Files.readAllBytes(from.toPath());
        Files.write(to, Arrays.copyOf(all, bytes));
    }
}
