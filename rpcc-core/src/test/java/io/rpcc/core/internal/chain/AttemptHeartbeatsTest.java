package io.rpcc.core.internal.chain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.BranchId;
import io.rpcc.core.BrokenChainException;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.internal.transport.Refusals;
import io.rpcc.core.internal.wire.ChainErrors;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Heartbeats and attempts at the originator: a chain sent again is kept alive only by heartbeats
 * carrying its own attempt's secret, so that an earlier attempt still running somewhere (its
 * heartbeats carry the chain's secret, attempt 1's) cannot hide a break of the later one; a
 * diagnosis ({@link ChainOriginator#restart}) is an attempt of its own.
 */
class AttemptHeartbeatsTest {
    static final long S = TimeUnit.SECONDS.toNanos(1);
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    ChainOriginator originator;
    NodeTimer timer;

    @BeforeEach
    void open() {
        timer = new NodeTimer();
        timer.open();
        originator = new ChainOriginator("client", new Refusals(), (channel, frame) -> { }, () -> { }, timer);
    }

    @AfterEach
    void close() {
        originator.close(() -> ChainErrors.toException(ChainErrorCode.CANCELLED, new ChainFailure(ChainErrors.exceptionName(ChainErrorCode.CANCELLED),
                "test over", "client", 0, List.of(), List.of(), List.of(), List.of())));
        timer.close();
    }

    /** The next attempt of ended {@code p}, watched as if sent 5 s ago with a broken-after time of 2 s. */
    private ChainOriginator.Pending nextAttempt(ChainOriginator.Pending p) {
        ChainOriginator.Pending next = originator.retransmit(p, TIMEOUT, ChainHeader.NO_DEADLINE, (v, hop, host, b) -> { });
        next.watchLiveness(new ChainLiveness(BranchId.root(), 1, "s1", 2 * S, System.nanoTime() - 5 * S));
        return next;
    }

    private static HeartbeatFrame beat(ChainOriginator.Pending p, int attempt) {
        return new HeartbeatFrame(p.id(), p.secret().forAttempt(attempt), 3, "s3", BranchId.root(), List.of());
    }

    @Test
    void anEarlierAttemptsHeartbeatsDoNotKeepALaterAttemptAlive() {
        ChainOriginator.Pending first = originator.start(TIMEOUT, ChainHeader.NO_DEADLINE, (v, hop, host, b) -> { });
        assertTrue(originator.supersede(first));
        ChainOriginator.Pending second = nextAttempt(first);
        assertEquals(2, second.attempt());
        originator.onHeartbeat(beat(first, 1), null); // attempt 1 still runs at s3 and beats
        assertEquals(1, originator.lateHeartbeats());
        assertEquals(1, originator.earlierAttemptFrames());
        originator.checkLiveness(System.nanoTime());
        CompletionException e = assertThrows(CompletionException.class,
                () -> second.outcome().join());
        assertInstanceOf(BrokenChainException.class, e.getCause(), "silent for 5 s: its own attempt never beat");
        assertEquals(1, originator.brokenChains());

        ChainOriginator.Pending third = nextAttempt(second);
        originator.onHeartbeat(beat(second, 3), null); // its own attempt's secret: alive
        originator.checkLiveness(System.nanoTime());
        assertFalse(third.outcome().isDone());
        assertEquals(1, originator.brokenChains());
        assertEquals(1, originator.inFlight());
    }

    @Test
    void aDiagnosisRunsAsTheNextAttemptAndOnlyOneAttemptOfAChainIsLive() {
        ChainOriginator.Pending first = originator.start(TIMEOUT, ChainHeader.NO_DEADLINE, (v, hop, host, b) -> { });
        assertThrows(IllegalStateException.class,
                () -> originator.restart(first, TIMEOUT, ChainHeader.NO_DEADLINE, (v, hop, host, b) -> { }),
                "a live chain is not run again");
        assertTrue(originator.supersede(first));
        ChainOriginator.Pending step = originator.restart(first, TIMEOUT, ChainHeader.NO_DEADLINE, (v, hop, host, b) -> { });
        assertEquals(2, step.attempt());
        assertEquals(first.id(), step.id());
        originator.onHeartbeat(beat(first, 1), null);
        assertEquals(1, originator.earlierAttemptFrames(), "the broken run's frames are late during its diagnosis");
        assertEquals(0, originator.retransmissions(), "a diagnosis is not counted as a retransmission");
        assertTrue(originator.supersede(step));
        ChainOriginator.Pending again = originator.retransmit(first, TIMEOUT, ChainHeader.NO_DEADLINE,
                (v, hop, host, b) -> { });
        assertEquals(3, again.attempt(), "the application's retransmission comes after the diagnosis's attempt");
        originator.onHeartbeat(beat(first, 2), null); // the diagnosis's step still beats somewhere
        assertEquals(2, originator.earlierAttemptFrames());
    }
}
