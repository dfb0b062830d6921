package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rpcc.core.internal.wire.ReplyFrame;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Jazzer fuzz target for arbitrary Kryo bytes as the user values of REQUEST, RESULT and REPLY frames, checked as {@link WireFuzz} says.
 * A class of its own, so that it fuzzes in a JVM of its own while the other targets fuzz in theirs.
 */
class UserValueFuzzTest extends WireFuzz {
    /**
     * Arbitrary Kryo bytes as the user values of a valid REQUEST, RESULT or REPLY (first byte: which):
     * the frame must decode with its header intact, and a value that cannot be read must be reported
     * in its decodeError.
     */
    @MethodSource("userValues")
    @FuzzTest(maxDuration = "10s")
    void userValue(byte[] input) {
        count("userValue");
        if (input.length == 0) {
            return;
        }
        Carrier carrier = Carrier.values()[(input[0] & 0xFF) % Carrier.values().length];
        byte[] prefix = PREFIXES.get(carrier);
        byte[] body = Arrays.copyOf(prefix, prefix.length + input.length - 1);
        System.arraycopy(input, 1, body, prefix.length, input.length - 1);
        Object message = checkDecode(body);
        assertTrue(message != null, "a frame with a valid header was refused as a whole");
        Object template = TEMPLATES.get(carrier);
        assertEquals(template.getClass(), message.getClass());
        for (RecordComponent c : template.getClass().getRecordComponents()) {
            // a REPLY's size is that of the whole frame, user values included
            if (!c.getName().equals("decodeError") && !isUserValue(c)
                    && !(message instanceof ReplyFrame && c.getName().equals("size"))) {
                assertEquals(read(c, template), read(c, message),
                        () -> c.getName() + " of the " + carrier + " frame changed with its user values");
            }
        }
    }
}
