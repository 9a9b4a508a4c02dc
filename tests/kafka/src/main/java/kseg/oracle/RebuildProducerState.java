// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.storage.internals.log.ProducerStateEntry;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * The oracle for kseg-reindex --producer-state: the .txnindex files and producer snapshots
 * Kafka 4.4's LogLoader leaves when it recovers every segment of a partition.
 *
 * rebuild [--now MS] [--keep-snapshots] CORPUS_DIR OUT_DIR [CASE...]: for every partition of
 *   every case, a copy without any .index, .timeindex, .txnindex or .snapshot (with
 *   --keep-snapshots: its snapshots kept) is opened with UnifiedLog.create after a clean
 *   shutdown (so every segment is recovered, producer state included) at MS (default
 *   FixedTime.START_MS),
 *   then closed. OUT_DIR/CASE/PARTITION/ gets every .txnindex and .snapshot the directory then
 *   holds, and producers.txt: the loaded log's producer state, one line per producer.
 * load [--unclean] (PARTITION_DIR CONFIG_JSON)...: opens each partition directory (a log dir's child, its
 *   checkpoints beside it) after a clean (or an unclean) shutdown at FixedTime.START_MS, and prints "== DIR", a line
 *   (or "error ..." where Kafka throws)
 *   "leo L snapshot S written W removed R", S the newest snapshot offset after loading, W and R
 *   the snapshot files the load and close wrote or removed, then producers.txt's lines.
 * hang PARTITION_DIR PRODUCER_ID: the classic cause of a hanging transaction, made with Kafka's
 *   own truncation: the partition is cut (UnifiedLog.truncateTo) at the producer's last
 *   transaction marker, so its last transaction stays open while the coordinator (its
 *   __transaction_state, left as it is) has ended it. Prints the offset of the marker cut.
 *   With S == L and W == R == 0 Kafka's loader replayed no batch: it loaded the snapshot at
 *   the log end (rebuildProducerState reads segments only below its target).
 */
public final class RebuildProducerState {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("hang")) {
            System.out.println(hang(new File(args[1]), Long.parseLong(args[2])));
            return;
        }
        if (args[0].equals("load")) {
            boolean unclean = args.length > 1 && args[1].equals("--unclean");
            for (int i = unclean ? 2 : 1; i + 1 < args.length; i += 2) {
                Map<String, Object> config = new LinkedHashMap<>();
                new ObjectMapper().readTree(args[i + 1]).fields()
                        .forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
                String result;
                try {
                    result = load(new File(args[i]), config, !unclean);
                } catch (Exception e) {
                    result = "error " + e + "\n";
                }
                System.out.print("== " + args[i] + "\n" + result);
            }
            return;
        }
        int i = 1;
        for (; args[i].startsWith("--"); i++) {
            if (args[i].equals("--keep-snapshots")) keepSnapshots = true;
            else if (args[i].equals("--now")) nowMs = Long.parseLong(args[++i]);
            else throw new IllegalArgumentException("unknown option " + args[i]);
        }
        RebuildIndexes.eachPartition(Path.of(args[i]), Path.of(args[i + 1]), Arrays.asList(args).subList(i + 2, args.length),
                RebuildProducerState::rebuild);
    }

    static boolean keepSnapshots = false;
    static long nowMs = FixedTime.START_MS;

    static boolean stateFile(String name) {
        return name.endsWith(".index") || name.endsWith(".timeindex") || name.endsWith(".txnindex")
                || name.endsWith(".snapshot");
    }

    static void rebuild(Path src, Map<String, Object> config, Path outDir) throws Exception {
        Path tmp = Files.createTempDirectory("kseg-producers");
        try {
            Path copy = tmp.resolve(src.getFileName().toString());
            Files.createDirectories(copy);
            Tree.reset(src, copy);
            for (File f : copy.toFile().listFiles())
                if (stateFile(f.getName()) && !(keepSnapshots && f.getName().endsWith(".snapshot")))
                    Files.delete(f.toPath());
            TopicPartition tp = UnifiedLog.parseTopicPartitionName(src.toFile());
            long logStart = LoadCheck.checkpoint(src.toFile(), "log-start-offset-checkpoint", tp, 0L);
            UnifiedLog log = Kafka.open(copy.toFile(), config, new FixedTime(nowMs), logStart, 0L, true, null);
            String producers = producers(log);
            log.close();
            Files.createDirectories(outDir);
            for (File f : copy.toFile().listFiles())
                if (f.getName().endsWith(".txnindex") || f.getName().endsWith(".snapshot"))
                    Files.copy(f.toPath(), outDir.resolve(f.getName()));
            Files.writeString(outDir.resolve("producers.txt"), producers);
        } finally {
            Generate.deleteTree(tmp.toFile());
        }
    }

    static String load(File dir, Map<String, Object> config, boolean clean) throws Exception {
        Map<String, byte[]> before = snapshots(dir);
        TopicPartition tp = UnifiedLog.parseTopicPartitionName(dir);
        long logStart = LoadCheck.checkpoint(dir, "log-start-offset-checkpoint", tp, 0L);
        long recoveryPoint = LoadCheck.checkpoint(dir, "recovery-point-offset-checkpoint", tp, 0L);
        UnifiedLog log = Kafka.open(dir, config, new FixedTime(FixedTime.START_MS), logStart, recoveryPoint, clean, null);
        long snapshot = log.producerStateManager().latestSnapshotOffset().orElse(-1L);
        long leo = log.logEndOffset();
        String producers = producers(log);
        log.close();
        Map<String, byte[]> after = snapshots(dir);
        int written = 0, removed = 0;
        for (var e : after.entrySet())
            if (!before.containsKey(e.getKey()) || !Arrays.equals(before.get(e.getKey()), e.getValue())) written++;
        for (String name : before.keySet())
            if (!after.containsKey(name)) removed++;
        return "leo " + leo + " snapshot " + snapshot + " written " + written + " removed " + removed + "\n" + producers;
    }

    static long hang(File dir, long producerId) throws Exception {
        long marker = -1;
        File[] logs = dir.listFiles((d, n) -> n.endsWith(".log"));
        Arrays.sort(logs);
        for (File f : logs)
            try (FileRecords fr = FileRecords.open(f)) {
                for (RecordBatch b : fr.batches())
                    if (b.isControlBatch() && b.producerId() == producerId) marker = b.baseOffset();
            }
        if (marker < 0) throw new IllegalStateException("no marker of producer " + producerId + " in " + dir);
        TopicPartition tp = UnifiedLog.parseTopicPartitionName(dir);
        long logStart = LoadCheck.checkpoint(dir, "log-start-offset-checkpoint", tp, 0L);
        UnifiedLog log = Kafka.open(dir, new LinkedHashMap<>(), new FixedTime(FixedTime.START_MS), logStart, 0L, true, null);
        log.truncateTo(marker);
        log.close();
        return marker;
    }

    static Map<String, byte[]> snapshots(File dir) throws Exception {
        Map<String, byte[]> out = new TreeMap<>();
        for (File f : dir.listFiles())
            if (f.getName().endsWith(".snapshot")) out.put(f.getName(), Files.readAllBytes(f.toPath()));
        return out;
    }

    static String producers(UnifiedLog log) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<Long, ProducerStateEntry> e : new TreeMap<>(log.producerStateManager().activeProducers()).entrySet()) {
            ProducerStateEntry p = e.getValue();
            int lastSeq = -1;
            for (var b : p.batchMetadata()) lastSeq = b.lastSeq();
            sb.append(e.getKey()).append(" epoch ").append(p.producerEpoch()).append(" lastSeq ").append(lastSeq)
                    .append(" lastOffset ").append(p.lastDataOffset()).append(" timestamp ").append(p.lastTimestamp())
                    .append(" coordinatorEpoch ").append(p.coordinatorEpoch()).append(" txnFirst ")
                    .append(p.currentTxnFirstOffset().orElse(-1L)).append('\n');
        }
        return sb.toString();
    }
}
