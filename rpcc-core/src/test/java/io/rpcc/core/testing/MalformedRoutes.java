package io.rpcc.core.testing;

import io.rpcc.core.StaticRoute;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * Static routes ({@link StaticRoute#ROUTE}) a hostile originator or hop could send: each is a well-formed
 * route with one offset, length or count made wrong, or a route cut short. The static route's step must
 * reject every one with a typed error rather than read outside the array; the function's unit test and
 * the end-to-end test at real nodes both use this list.
 */
public final class MalformedRoutes {
    private MalformedRoutes() {
    }

    /**
     * Malformed variants of {@code good}, a route of at least two hops whose next hop (index 1) is the
     * one the step reads.
     */
    public static List<byte[]> of(byte[] good) {
        int second = ByteBuffer.wrap(good).getInt(5 + 4); // the entry of hop 1, the one read next
        return List.of(
                new byte[0],
                new byte[] {1, 0, 0, 0}, // shorter than its header
                new byte[] {1, 0, 0, 0, 9}, // nine hops and no offsets
                with(good, 0, 7), // a layout this build does not know
                with(good, 4, 0), // no hops
                withInt(good, 1, Integer.MAX_VALUE), // more hops than it has offsets for
                withInt(good, 1, 0x4000_0001), // 5 + 4 × hops overflows
                withInt(good, 5 + 4, good.length), // an offset past its end
                withInt(good, 5 + 4, good.length - 3), // an offset whose length runs past the end
                withInt(good, 5 + 4, -8), // a negative offset
                withInt(good, second, Integer.MAX_VALUE), // a server name longer than the array
                withInt(good, second, -1)); // a negative length
    }

    /** {@code good} without its last byte: the last hop's name is cut short (read when the last hop is next). */
    public static byte[] cutShort(byte[] good) {
        return Arrays.copyOf(good, good.length - 1);
    }

    private static byte[] with(byte[] b, int at, int value) {
        byte[] copy = b.clone();
        copy[at] = (byte) value;
        return copy;
    }

    private static byte[] withInt(byte[] b, int at, int value) {
        byte[] copy = b.clone();
        ByteBuffer.wrap(copy).putInt(at, value);
        return copy;
    }
}
