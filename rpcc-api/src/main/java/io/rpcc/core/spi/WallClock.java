package io.rpcc.core.spi;

import java.time.Duration;

/**
 * The wall clock of one sandboxed chaining-function invocation: the time since it started, less the
 * time it spent blocked in {@code preturn} waiting for the chain's originator to read (room in its
 * reply window, or its connection to drain). That wait is the reader's pace, not the function's
 * work, and a service function's {@code preturn} waits for it up to the node's reply write timeout:
 * a chaining function's does the same instead of failing with rule {@code wall-time}. The time so
 * excused is bounded, in all, by the write timeout of the waits ({@link #waitingForReader}), so an
 * invocation holds its thread at most its wall-time limit plus one write timeout, however often it
 * retries a {@code preturn} that timed out. The owner thread starts and stops waits; any thread may
 * read the clock. A plug-in's sandbox makes one per invocation and {@linkplain #enter() enters} it on
 * the thread that runs the function; the node's {@code preturn} calls {@link #waitingForReader}.
 */
public final class WallClock {
    private static final ThreadLocal<WallClock> CURRENT = new ThreadLocal<>();

    /** Time excused before the current wait, whether a wait is on and since when, and the bound. */
    private record Waits(long excusedNanos, boolean waiting, long sinceNanos, long maxExcusedNanos) {
        long excused(long nowNanos) {
            long e = excusedNanos + (waiting ? nowNanos - sinceNanos : 0);
            return Math.min(e, maxExcusedNanos);
        }
    }

    /** Ends a wait started by {@link #waitingForReader}; throws nothing. */
    @FunctionalInterface
    public interface Wait extends AutoCloseable {
        @Override
        void close();
    }

    private static final Wait NONE = () -> { };

    private final long startedNanos;
    private final long limitNanos;
    private volatile Waits waits = new Waits(0, false, 0, 0);

    /** A clock started at {@code startedNanos} ({@link System#nanoTime()}) for a limit of {@code limitNanos}. */
    public WallClock(long startedNanos, long limitNanos) {
        this.startedNanos = startedNanos;
        this.limitNanos = limitNanos;
    }

    /** When the invocation started ({@link System#nanoTime()}). */
    public long started() {
        return startedNanos;
    }

    /** The wall-time limit, in nanoseconds. */
    public long limitNanos() {
        return limitNanos;
    }

    /** The invocation's wall time at {@code nowNanos}: the time since it started less the excused waits. */
    public long elapsed(long nowNanos) {
        return nowNanos - startedNanos - waits.excused(nowNanos);
    }

    /** When the invocation's wall time runs out, as seen at {@code nowNanos} (it moves on while it waits). */
    public long deadline(long nowNanos) {
        return startedNanos + limitNanos + waits.excused(nowNanos);
    }

    /**
     * What a wall-time violation adds to its message at {@code nowNanos}: the time left out of the
     * invocation's wall time, if any, e.g. " (besides 1200 ms waiting for its chain's reader)".
     */
    public String besidesWaits(long nowNanos) {
        long ms = waits.excused(nowNanos) / 1_000_000;
        return ms == 0 ? "" : " (besides " + ms + " ms waiting in preturn for its chain's reader)";
    }

    /** Makes this the clock of the invocation on the current thread. */
    public void enter() {
        CURRENT.set(this);
    }

    /** The current thread runs no invocation any more. */
    public static void exit() {
        CURRENT.remove();
    }

    /**
     * The current thread is about to wait for the chain's originator to read partial replies, at most
     * {@code writeTimeout}: if it runs a sandboxed invocation, that time does not count against its
     * wall-time limit (up to {@code writeTimeout} in all for the invocation) until the returned wait
     * is closed. Does nothing on other threads.
     */
    public static Wait waitingForReader(Duration writeTimeout) {
        WallClock clock = CURRENT.get();
        if (clock == null || clock.waits.waiting()) {
            return NONE;
        }
        long max = writeTimeout.toNanos();
        Waits w = clock.waits;
        clock.waits = new Waits(w.excusedNanos(), true, System.nanoTime(), Math.max(w.maxExcusedNanos(), max));
        return () -> {
            Waits on = clock.waits;
            long excused = Math.min(on.excusedNanos() + (System.nanoTime() - on.sinceNanos()), on.maxExcusedNanos());
            clock.waits = new Waits(excused, false, 0, on.maxExcusedNanos());
        };
    }
}
