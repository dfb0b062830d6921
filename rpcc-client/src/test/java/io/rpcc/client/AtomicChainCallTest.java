package io.rpcc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rpcc.core.ChainState;
import io.rpcc.core.Metadata;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link ChainCall#atomic()}: the flag (and its {@link AtomicCompletion}) survives every setter; modes an atomic chain cannot run in are refused. */
class AtomicChainCallTest {
    @Test
    void everySetterKeepsTheChainAtomic() {
        ChainCall call = ChainCall.to("bank-a", "debit").atomic();
        assertTrue(call.atomicChain());
        assertFalse(ChainCall.to("bank-a", "debit").atomicChain());
        ChainCall changed = call.params(5).state(ChainState.of("k", 1)).timeout(Duration.ofSeconds(3))
                .deadline(Duration.ofSeconds(2)).maxHops(9).metadata(Metadata.empty()).metadata("t", "x")
                .heartbeats(Heartbeats.every(Duration.ofSeconds(1), Duration.ofSeconds(3)))
                .retry(RetryPolicy.NONE).stateFallback(StateFallback.NEVER).interactive(false);
        assertTrue(changed.atomicChain());
        assertEquals(AtomicCompletion.APPLIED, changed.atomicCompletion(), "atomic() waits for the commit applied");
        ChainCall decided = ChainCall.to("bank-a", "debit").atomic(AtomicCompletion.DECIDED).params(5)
                .timeout(Duration.ofSeconds(3)).metadata("t", "x").retry(RetryPolicy.NONE).maxHops(9);
        assertTrue(decided.atomicChain());
        assertEquals(AtomicCompletion.DECIDED, decided.atomicCompletion());
        assertEquals(AtomicCompletion.APPLIED, decided.atomic().atomicCompletion());
    }

    @Test
    void anAtomicChainInInteractiveModeOrWithAStreamIsRefusedSayingWhatToDo() {
        try (RpccClient client = RpccClient.builder().build().start()) {
            IllegalArgumentException interactive = refusal(client,
                    ChainCall.to("bank-a", "debit").atomic().interactive(true));
            assertTrue(interactive.getMessage().contains("ChainCall.interactive(false)"), interactive.getMessage());
            IllegalArgumentException stream = refusal(client, ChainCall.to("bank-a", "debit").atomic()
                            .stream(new ByteArrayInputStream(new byte[3])));
            assertTrue(stream.getMessage().contains("atomic chain"), stream.getMessage());
            IllegalArgumentException fallback = refusal(client, ChainCall.to("bank-a", "debit").atomic()
                            .chainingFunction(io.rpcc.core.ChainingFunctionSource.java("class X {}"))
                            .stateFallback(StateFallback.ALWAYS));
            assertTrue(fallback.getMessage().contains("StateFallback.NEVER"), fallback.getMessage());
        }
    }

    private static IllegalArgumentException refusal(RpccClient client, ChainCall call) {
        java.util.concurrent.CompletionException e = assertThrows(java.util.concurrent.CompletionException.class,
                () -> client.startChain(call).join());
        return org.junit.jupiter.api.Assertions.assertInstanceOf(IllegalArgumentException.class, e.getCause());
    }
}
