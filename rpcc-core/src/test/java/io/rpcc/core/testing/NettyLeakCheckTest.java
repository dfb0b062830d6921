package io.rpcc.core.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The leak check itself must catch a leak, or every "no leak" verdict means nothing. */
class NettyLeakCheckTest {
    @Test
    void detectsALeakedBuffer() {
        NettyLeakCheck.collect();
        leak();
        List<String> leaks = List.of();
        for (int i = 0; i < 20 && leaks.isEmpty(); i++) {
            leaks = NettyLeakCheck.collect();
        }
        assertFalse(leaks.isEmpty(), "a buffer that was never released must be reported");
    }

    private static void leak() {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(64);
        b.writeLong(42);
        // never released
    }
}
