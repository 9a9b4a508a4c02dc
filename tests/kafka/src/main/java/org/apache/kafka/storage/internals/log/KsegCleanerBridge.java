// SPDX-License-Identifier: Apache-2.0
package org.apache.kafka.storage.internals.log;

import java.util.Optional;

/** LogCleanerManager.cleanableOffsets is package-private: this test-only class, in Kafka's
 *  package, hands its result to the compaction oracle (kseg.oracle.Compact). */
public final class KsegCleanerBridge {
    private KsegCleanerBridge() { }

    /** {firstDirtyOffset, firstUncleanableDirtyOffset} as the cleaner manager computes them. */
    public static long[] cleanableOffsets(UnifiedLog log, Optional<Long> lastCleanOffset, long now) throws Exception {
        LogCleanerManager.OffsetsToClean o = LogCleanerManager.cleanableOffsets(log, lastCleanOffset, now);
        return new long[] {o.firstDirtyOffset(), o.firstUncleanableDirtyOffset()};
    }
}
