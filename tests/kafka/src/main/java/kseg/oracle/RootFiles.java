// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.properties.MetaProperties;
import org.apache.kafka.metadata.properties.MetaPropertiesVersion;
import org.apache.kafka.metadata.properties.PropertiesUtils;
import org.apache.kafka.storage.internals.checkpoint.CleanShutdownFileHandler;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/** The log-dir root files a broker writes at a clean shutdown, with Kafka's own writers. */
final class RootFiles {
    private RootFiles() { }

    /** Writes the checkpoints for the given (flushed) logs, meta.properties and the clean
     *  shutdown marker. cleanerOffsets: the cleaner's progress, for compacted partitions. */
    static void write(Case c, List<UnifiedLog> logs, Map<TopicPartition, Long> cleanerOffsets) throws Exception {
        Map<TopicPartition, Long> recovery = new LinkedHashMap<>(), start = new LinkedHashMap<>(), hw = new LinkedHashMap<>();
        for (UnifiedLog log : logs) {
            recovery.put(log.topicPartition(), log.recoveryPoint());
            start.put(log.topicPartition(), log.logStartOffset());
            hw.put(log.topicPartition(), log.highWatermark());
        }
        LogDirFailureChannel ch = new LogDirFailureChannel(1);
        new OffsetCheckpointFile(new File(c.dir, "recovery-point-offset-checkpoint"), ch).write(recovery);
        new OffsetCheckpointFile(new File(c.dir, "log-start-offset-checkpoint"), ch).write(start);
        new OffsetCheckpointFile(new File(c.dir, "replication-offset-checkpoint"), ch).write(hw);
        if (!cleanerOffsets.isEmpty())
            new OffsetCheckpointFile(new File(c.dir, "cleaner-offset-checkpoint"), ch).write(cleanerOffsets);
        Random r = new Random(c.seed * 7 + 1);
        MetaProperties meta = new MetaProperties.Builder()
                .setVersion(MetaPropertiesVersion.V1)
                .setClusterId(new Uuid(r.nextLong(), r.nextLong()).toString())
                .setNodeId(1)
                .setDirectoryId(new Uuid(r.nextLong() | 1, r.nextLong()))
                .build();
        // Properties.store writes the current date as a comment: this file is the one part of
        // a case that is not byte-reproducible.
        PropertiesUtils.writePropertiesFile(meta.toProperties(), new File(c.dir, "meta.properties").getPath(), false);
        new CleanShutdownFileHandler(c.dir.getPath()).write(42L);
        c.step("wrote recovery-point/log-start-offset/replication-offset" + (cleanerOffsets.isEmpty() ? "" : "/cleaner-offset")
                + " checkpoints, meta.properties (node 1) and " + CleanShutdownFileHandler.CLEAN_SHUTDOWN_FILE_NAME
                + " (broker epoch 42) with Kafka's writers");
    }
}
