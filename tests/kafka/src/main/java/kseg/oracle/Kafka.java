// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/** Thin wrappers over Kafka's own storage classes, with the broker's defaults spelled out. */
final class Kafka {
    private Kafka() { }

    /** Broker defaults (transaction.max.timeout.ms, producer.id.expiration.ms, its check interval). */
    static final int MAX_TXN_TIMEOUT_MS = 900_000;
    static final int PRODUCER_ID_EXPIRATION_MS = 86_400_000;
    static final int PRODUCER_ID_EXPIRATION_CHECK_MS = 600_000;

    /** Opens (creating or loading) a partition directory as LogManager would. */
    static UnifiedLog open(File partitionDir, Map<String, ?> topicConfig, Time time, long logStartOffset,
                           long recoveryPoint, boolean hadCleanShutdown, Uuid topicId) throws IOException {
        return UnifiedLog.create(partitionDir, new LogConfig(topicConfig), logStartOffset, recoveryPoint,
                new InlineScheduler(), new BrokerTopicStats(), time, MAX_TXN_TIMEOUT_MS,
                new ProducerStateManagerConfig(PRODUCER_ID_EXPIRATION_MS, false),
                PRODUCER_ID_EXPIRATION_CHECK_MS, new LogDirFailureChannel(1), hadCleanShutdown,
                Optional.ofNullable(topicId));
    }

    /** Appends a transaction marker as the coordinator's WriteTxnMarkers does under
     *  transaction version 0 (no epoch bump on the marker). */
    static void appendMarker(UnifiedLog log, MemoryRecords marker, int leaderEpoch) throws IOException {
        appendMarker(log, marker, leaderEpoch, org.apache.kafka.server.common.TransactionVersion.TV_0);
    }

    /** The same under a given transaction version: under TV_2 (Kafka 4.x's default) the
     *  coordinator writes each marker with the producer's epoch bumped by one. */
    static void appendMarker(UnifiedLog log, MemoryRecords marker, int leaderEpoch,
                             org.apache.kafka.server.common.TransactionVersion tv) throws IOException {
        log.appendAsLeader(marker, leaderEpoch, org.apache.kafka.storage.internals.log.AppendOrigin.COORDINATOR,
                org.apache.kafka.server.common.RequestLocal.noCaching(),
                org.apache.kafka.storage.internals.log.VerificationGuard.SENTINEL, tv.featureLevel());
    }

    /** One batch of the given magic built by the client-side builder, starting at baseOffset. */
    static MemoryRecords batch(byte magic, Compression compression, TimestampType tsType, long baseOffset,
                               List<SimpleRecord> records) {
        return batch(magic, compression, tsType, baseOffset, RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH, RecordBatch.NO_SEQUENCE, false, RecordBatch.NO_PARTITION_LEADER_EPOCH,
                records);
    }

    static MemoryRecords batch(byte magic, Compression compression, TimestampType tsType, long baseOffset,
                               long producerId, short producerEpoch, int baseSequence, boolean transactional,
                               int partitionLeaderEpoch, List<SimpleRecord> records) {
        // The builder grows its buffer as needed; the initial size is only a hint.
        ByteBuffer buf = ByteBuffer.allocate(1024);
        // LogAppendTime batches carry the broker's time: the builder needs it up front for v0/v1.
        long logAppendTime = tsType == TimestampType.LOG_APPEND_TIME ? records.get(0).timestamp() : RecordBatch.NO_TIMESTAMP;
        MemoryRecordsBuilder b = MemoryRecords.builder(buf, magic, compression, tsType, baseOffset, logAppendTime,
                producerId, producerEpoch, baseSequence, transactional, partitionLeaderEpoch);
        for (SimpleRecord r : records) b.append(r);
        return b.build();
    }
}
