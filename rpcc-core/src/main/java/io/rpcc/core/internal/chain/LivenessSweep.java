package io.rpcc.core.internal.chain;

import io.netty.util.Timeout;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's one periodic task for chain heartbeats (paper 3.9), instead of a timer per hop or per
 * chain: every {@link #PERIOD_MILLIS} ms, on the node's executor (never on the timer's thread or an
 * event loop: sending a heartbeat may resolve a name), the originator declares broken the chains it
 * started whose branches went silent and sends again the atomic decisions not acknowledged in time,
 * and the server side sends the heartbeats that are due for the hops and merges it holds. One sweep runs at a time; the next is scheduled when it ends.
 */
final class LivenessSweep {
    /** How often the sweep runs; a heartbeat is sent at most this late. */
    static final long PERIOD_MILLIS = 200;

    private static final Logger log = LoggerFactory.getLogger(LivenessSweep.class);

    private final ChainOriginator originator;
    private final RequestHandler requests;
    private final Executor executor;
    private final NodeTimer timer;
    private volatile boolean stopped;
    private volatile Timeout next;

    LivenessSweep(ChainOriginator originator, RequestHandler requests, Executor executor, NodeTimer timer) {
        this.originator = originator;
        this.requests = requests;
        this.executor = executor;
        this.timer = timer;
    }

    /** Starts sweeping. */
    void start() {
        schedule();
    }

    /** Stops sweeping (a sweep running now finishes). */
    void stop() {
        stopped = true;
        Timeout t = next;
        if (t != null) {
            t.cancel();
        }
    }

    private void schedule() {
        if (stopped) {
            return;
        }
        try {
            next = timer.newTimeout(t -> hand(), PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        } catch (IllegalStateException timerStopped) {
            stopped = true; // the last node closed meanwhile
        }
    }

    private void hand() {
        try {
            executor.execute(this::sweep);
        } catch (RuntimeException refused) {
            schedule(); // an executor that refuses work now: try again next period
        }
    }

    private void sweep() {
        try {
            long now = System.nanoTime();
            originator.checkLiveness(now);
            originator.atomic().resendDue(now); // decisions some voter has not acknowledged in time
            requests.sendDueHeartbeats(now);
        } catch (RuntimeException e) {
            log.warn("the heartbeat sweep failed (it goes on next period): {}", e.toString(), e);
        } finally {
            schedule();
        }
    }
}
