package io.rpcc.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rpcc.core.spi.ReadLazily;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A result keeps timings the engine decodes only when read ({@link ReadLazily}) as they are, and
 * copies any other list: either way its timings are immutable and read the same.
 */
class ChainResultTimingsTest {
    private static final HopTiming A = new HopTiming(1, "a", "f", 1, 2, 0, 3, "a");
    private static final HopTiming B = new HopTiming(2, "b", "g", 4, 5, 0, 6, "b");

    private static ChainResult result(List<HopTiming> timings) {
        return new ChainResult("v", "client", List.of("a", "b"), List.of(), timings, Duration.ofMillis(1), false, List.of());
    }

    @Test
    void lazyTimingsAreMadeOnceWhenReadAndNotBefore() {
        AtomicInteger asked = new AtomicInteger();
        ChainResult r = result(ReadLazily.of(() -> {
            asked.incrementAndGet();
            return new ArrayList<>(List.of(A, B));
        }));
        ChainResult again = r.withReplies(List.of("x")).withStateChoices(List.of());
        assertEquals(0, asked.get(), "the timings were made though nobody read them");
        assertEquals(List.of(A, B), again.timings());
        assertEquals(List.of(A, B), r.timings());
        assertEquals(1, asked.get());
        assertEquals(result(List.of(A, B)), r);
        assertEquals(result(List.of(A, B)).hashCode(), r.hashCode());
        assertEquals(result(List.of(A, B)).profile().toString(), r.profile().toString());
        assertThrows(UnsupportedOperationException.class, () -> r.timings().add(A));
        assertThrows(UnsupportedOperationException.class, () -> r.timings().set(0, B));
    }

    @Test
    void otherTimingsAreCopied() {
        List<HopTiming> source = new ArrayList<>(List.of(A));
        ChainResult r = result(source);
        source.add(B);
        assertEquals(List.of(A), r.timings());
        assertThrows(UnsupportedOperationException.class, () -> r.timings().add(B));
        List<HopTiming> lazy = ReadLazily.of(() -> List.of(A));
        assertSame(lazy, result(lazy).timings());
    }
}
