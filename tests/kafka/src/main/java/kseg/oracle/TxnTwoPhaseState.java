// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.io.File;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.coordinator.transaction.TransactionLog;
import org.apache.kafka.coordinator.transaction.TransactionMetadata;
import org.apache.kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.UnifiedLog;

/**
 * Appends to a __transaction_state partition (its broker down) the id's newest state as it
 * stands but with the transaction timeout Kafka 4.4.0's coordinator gives a producer that asked
 * for two-phase commit, Integer.MAX_VALUE (a real 2PC producer has it from its InitProducerId on)
 * (TransactionCoordinator.handleInitProducerId; TransactionMetadata.isDistributedTwoPhaseCommitTxn
 * tests that value), serialized by Kafka's TransactionLog. Prints the state it appended.
 * Usage: TxnTwoPhaseState PARTITION_DIR TXN_ID
 */
public final class TxnTwoPhaseState {
    public static void main(String[] args) throws Exception {
        String id = args[1];
        // The broker's index size (lib.sh: log.index.size.max.bytes=4096), or it fails to resize them.
        UnifiedLog log = Kafka.open(new File(args[0]), Map.of("cleanup.policy", "compact", "segment.index.bytes", 4096),
                Time.SYSTEM, 0, 0, false, null);
        TransactionMetadata m = null;
        for (LogSegment s : log.logSegments())
            for (RecordBatch b : s.log().batches())
                for (Record r : b)
                    if (r.hasKey() && r.hasValue()
                            && TransactionLog.read(r.key(), r.value()) instanceof TransactionLog.TxnRecord t
                            && t.transactionId().equals(id))
                        m = t.metadata();
        if (m == null) throw new IllegalStateException("no state of " + id + " in " + args[0]);
        TxnTransitMetadata twoPhase = new TxnTransitMetadata(m.producerId(), m.prevProducerId(),
                RecordBatch.NO_PRODUCER_ID, m.producerEpoch(), m.lastProducerEpoch(), Integer.MAX_VALUE, m.state(),
                new HashSet<>(m.topicPartitions()), m.txnStartTimestamp(), m.txnLastUpdateTimestamp(),
                m.clientTransactionVersion());
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(m.txnLastUpdateTimestamp(), TransactionLog.keyToBytes(id),
                        TransactionLog.valueToBytes(twoPhase, m.clientTransactionVersion())));
        int epoch = log.latestEpoch().orElse(0);
        log.appendAsLeader(records, epoch, org.apache.kafka.storage.internals.log.AppendOrigin.COORDINATOR,
                org.apache.kafka.server.common.RequestLocal.noCaching(),
                org.apache.kafka.storage.internals.log.VerificationGuard.SENTINEL,
                m.clientTransactionVersion().featureLevel());
        log.flush(true);
        // Trimmed, as a broker's controlled shutdown leaves them (UnifiedLog.close() does not:
        // kseg-verify would rightly call the preallocated .timeindex timeindex.preallocated_loaded).
        log.activeSegment().offsetIndex().trimToValidSize();
        log.activeSegment().timeIndex().trimToValidSize();
        log.close();
        System.out.println(id + ": " + twoPhase);
    }
}
