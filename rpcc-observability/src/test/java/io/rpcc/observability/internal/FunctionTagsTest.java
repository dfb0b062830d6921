package io.rpcc.observability.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rpcc.core.ChainContext;
import io.rpcc.server.HopDecorator;
import java.lang.reflect.Proxy;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@link FunctionTags}: the values it gives stay a bounded set whatever names hops carry. */
class FunctionTagsTest {
    static final ChainContext CONTEXT = (ChainContext) Proxy.newProxyInstance(
            FunctionTagsTest.class.getClassLoader(), new Class<?>[] {ChainContext.class}, (p, m, a) -> null);

    final FunctionTags tags = new FunctionTags();

    @Test
    void aProxyKeepsTheFirstNamesFromElsewhereThenTagsTheRestOther() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 10 * FunctionTags.LIMIT; i++) {
            seen.add(tags.of(new HopDecorator.Start(HopDecorator.Kind.CHAINING_PROXY, CONTEXT, "elsewhere-" + i)));
        }
        assertEquals(FunctionTags.LIMIT + 1, seen.size());
        assertEquals(true, seen.contains(FunctionTags.OTHER));
        assertEquals("elsewhere-7", tags.of(new HopDecorator.Start(HopDecorator.Kind.CHAINING_PROXY, CONTEXT,
                "elsewhere-7")), "a name kept stays its own tag");
    }

    @Test
    void aServiceHopIsTaggedWithItsFunctionOrUnknownAndOtherKindsNone() {
        assertEquals("ok", tags.of(new HopDecorator.Start(HopDecorator.Kind.SERVICE, CONTEXT, "ok")));
        assertEquals(FunctionTags.UNKNOWN, tags.of(new HopDecorator.Start(HopDecorator.Kind.SERVICE, CONTEXT, null)));
        assertEquals(FunctionTags.NONE, tags.of(new HopDecorator.Start(HopDecorator.Kind.MERGE, CONTEXT, null)));
    }
}
