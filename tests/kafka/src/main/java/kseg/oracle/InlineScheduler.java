// SPDX-License-Identifier: Apache-2.0
package kseg.oracle;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Delayed;
import org.apache.kafka.server.util.Scheduler;

/** Runs one-shot tasks (async segment/snapshot deletion) at once on the calling thread and
 *  drops periodic ones (producer-expiry checks), so no background thread can make a run
 *  differ from the next and no ".deleted" file is left behind. */
final class InlineScheduler implements Scheduler {
    @Override public void startup() { }
    @Override public void shutdown() { }
    @Override public void resizeThreadPool(int n) { }

    @Override
    public ScheduledFuture<?> schedule(String name, Runnable task, long delayMs, long periodMs) {
        if (periodMs <= 0) task.run();
        return new Done();
    }

    private static final class Done extends CompletableFuture<Object> implements ScheduledFuture<Object> {
        Done() { complete(null); }
        @Override public long getDelay(TimeUnit unit) { return 0; }
        @Override public int compareTo(Delayed o) { return 0; }
    }
}
