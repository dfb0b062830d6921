package io.rpcc.core.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainException;
import io.rpcc.core.ChainFailure;
import io.rpcc.core.FailureFields;
import io.rpcc.core.PeerAuthenticationException;
import io.rpcc.core.ProtocolVersionException;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The error numbers are the protocol: this test fails the build if one is renumbered, reused or dropped. */
class ErrorCodeTest {

    /** Every public code and its wire number. Append new codes here; never change a line. */
    private static final Map<ChainErrorCode, Integer> PINNED = pinned();

    private static Map<ChainErrorCode, Integer> pinned() {
        Map<ChainErrorCode, Integer> m = new LinkedHashMap<>();
        m.put(ChainErrorCode.INTERNAL, 0);
        m.put(ChainErrorCode.UNKNOWN_SERVER, 1);
        m.put(ChainErrorCode.UNKNOWN_SERVICE_FUNCTION, 2);
        m.put(ChainErrorCode.SERVICE_FUNCTION_FAILED, 3);
        m.put(ChainErrorCode.CHAINING_FUNCTION_FAILED, 4);
        m.put(ChainErrorCode.CHAINING_FUNCTION_COMPILE, 5);
        m.put(ChainErrorCode.HOP_UNREACHABLE, 6);
        m.put(ChainErrorCode.MALFORMED_FRAME, 7);
        m.put(ChainErrorCode.FRAME_TOO_LARGE, 8);
        m.put(ChainErrorCode.UNREGISTERED_TYPE, 9);
        m.put(ChainErrorCode.HOP_LIMIT_EXCEEDED, 10);
        m.put(ChainErrorCode.TIMEOUT, 11);
        m.put(ChainErrorCode.FLOW_CONTROL, 12);
        m.put(ChainErrorCode.SANDBOX_VIOLATION, 13);
        m.put(ChainErrorCode.FUNCTION_NOT_FOUND, 14);
        m.put(ChainErrorCode.REPOSITORY_UNAVAILABLE, 15);
        m.put(ChainErrorCode.PEER_AUTHENTICATION, 16);
        m.put(ChainErrorCode.DEADLINE_EXCEEDED, 17);
        m.put(ChainErrorCode.CANCELLED, 18);
        m.put(ChainErrorCode.PROTOCOL_VERSION, 19);
        m.put(ChainErrorCode.HOP_REJECTED, 20);
        m.put(ChainErrorCode.NODE_CLOSED, 21);
        m.put(ChainErrorCode.NODE_SHUTTING_DOWN, 22);
        m.put(ChainErrorCode.SUB_CHAIN, 23);
        m.put(ChainErrorCode.BROKEN_CHAIN, 24);
        m.put(ChainErrorCode.PERMISSION_DENIED, 25);
        m.put(ChainErrorCode.REPLAY_DIVERGED, 26);
        m.put(ChainErrorCode.ABORTED, 27);
        return m;
    }

    @Test
    void everyCodeKeepsItsNumber() {
        assertEquals(PINNED.keySet(), EnumSet.allOf(ChainErrorCode.class), "every code is pinned, and only codes that exist");
        for (ChainErrorCode c : ChainErrorCode.values()) {
            assertEquals(PINNED.get(c), c.number(), c.name());
            assertEquals(c, ChainErrorCode.forNumber(c.number()));
        }
    }

    @Test
    void unknownNumbersFromANewerPeerAreInternal() {
        for (int n : new int[] {-1, ChainErrorCode.values().length + 1, 99, 1 << 20, Integer.MAX_VALUE}) {
            assertEquals(ChainErrorCode.INTERNAL, ChainErrorCode.forNumber(n));
        }
    }

    @Test
    void eachCodeTravelsAsItsNumberAndBecomesAnExceptionReportingThatCode() {
        Set<ChainErrorCode> mapped = EnumSet.noneOf(ChainErrorCode.class);
        for (ChainErrorCode kind : ChainErrorCode.values()) {
            assertEquals(kind, ChainErrorCode.forNumber(kind.number()), "the wire number reads back");
            ChainException e = ChainErrors.toException(kind, failure(FailureFields.NONE));
            assertEquals(kind, e.code(), kind + " becomes " + e.getClass().getSimpleName());
            assertEquals(ChainErrors.exceptionName(kind), e.getClass().getName());
            mapped.add(e.code());
        }
        assertEquals(EnumSet.allOf(ChainErrorCode.class), mapped, "every code has its exception");
    }

    @Test
    void onlyCodesMeaningThePeerWasNeverReachedAreUnreachable() {
        Set<ChainErrorCode> unreachable = EnumSet.noneOf(ChainErrorCode.class);
        for (ChainErrorCode kind : ChainErrorCode.values()) {
            if (ChainErrors.unreachable(kind)) {
                unreachable.add(kind);
            }
        }
        assertEquals(EnumSet.of(ChainErrorCode.HOP_UNREACHABLE, ChainErrorCode.PEER_AUTHENTICATION,
                ChainErrorCode.PROTOCOL_VERSION), unreachable);
    }

    @Test
    void retryableCodesAndTransientFailures() {
        Set<ChainErrorCode> retryable = EnumSet.noneOf(ChainErrorCode.class);
        for (ChainErrorCode kind : ChainErrorCode.values()) {
            if (ChainErrors.toException(kind, failure(FailureFields.NONE)).isRetryable()) {
                retryable.add(kind);
            }
            assertTrue(ChainErrors.toException(kind, failure(new FailureFields(true, null, null, null, List.of())))
                            .isRetryable(),
                    "a failure its node marked as of the moment is retryable: " + kind);
        }
        assertEquals(EnumSet.of(ChainErrorCode.HOP_UNREACHABLE, ChainErrorCode.REPOSITORY_UNAVAILABLE,
                ChainErrorCode.NODE_SHUTTING_DOWN, ChainErrorCode.NODE_CLOSED, ChainErrorCode.BROKEN_CHAIN), retryable);
        ChainException version = ChainErrors.toException(ChainErrorCode.PROTOCOL_VERSION, failure(FailureFields.NONE));
        assertInstanceOf(ProtocolVersionException.class, version);
        assertFalse(version.isRetryable(), "a subtype of HopUnreachableException, but configuration: not retryable");
        assertFalse(ChainErrors.toException(ChainErrorCode.PEER_AUTHENTICATION, failure(FailureFields.NONE)).isRetryable());
        assertInstanceOf(PeerAuthenticationException.class,
                ChainErrors.toException(ChainErrorCode.PEER_AUTHENTICATION, failure(FailureFields.NONE)));
    }

    private static ChainFailure failure(FailureFields fields) {
        return new ChainFailure("x", "m", "h", 1, List.of("h"), List.of(), List.of(), List.of(), fields);
    }
}
