package io.rpcc.core.internal.chain;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.rpcc.core.internal.lifecycle.SharedResource;
import io.rpcc.core.spi.EngineSpi;
import java.util.concurrent.TimeUnit;

/**
 * The timer of one node, owned by its {@link Node}, which opens it when it starts and closes it when
 * it closes: chains' timeouts and deadlines ({@link ChainOriginator}), the {@link LivenessSweep}, and
 * what the server side schedules (the grace a hop's quiet frame waits for). Its ticks come from one
 * wheel ("rpcc-timeouts") that the open timers of the JVM share: the first to open creates it, the
 * last to close stops it.
 */
@EngineSpi
public final class NodeTimer {
    private static final SharedResource<HashedWheelTimer> WHEEL = new SharedResource<>("rpcc's chain timeout timer",
            () -> new HashedWheelTimer(new DefaultThreadFactory("rpcc-timeouts", true), 10, TimeUnit.MILLISECONDS),
            HashedWheelTimer::stop);

    private volatile HashedWheelTimer wheel;
    private boolean closed; // guarded by this

    /** A timer, not yet open. */
    public NodeTimer() {
    }

    /** Takes a hold on the shared wheel (the node started). Called once. */
    public synchronized void open() {
        if (wheel == null && !closed) {
            wheel = WHEEL.acquire();
        }
    }

    /**
     * Gives up the hold {@link #open()} took (the node closed); tasks scheduled later fail with an
     * {@link IllegalStateException} once the JVM's last timer closed. Idempotent.
     */
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (wheel != null) {
            WHEEL.release();
        }
    }

    /**
     * Runs {@code task} after {@code delay}.
     *
     * @throws IllegalStateException if the wheel has stopped (the JVM's last node closed)
     * @throws NullPointerException if this timer was never opened
     */
    public Timeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        return wheel.newTimeout(task, delay, unit);
    }
}
