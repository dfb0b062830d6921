package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Jazzer fuzz target for arbitrary byte streams through the length-prefixed frame decoder in a Netty pipeline, checked as {@link WireFuzz} says.
 * A class of its own, so that it fuzzes in a JVM of its own while the other targets fuzz in theirs.
 */
class FrameStreamFuzzTest extends WireFuzz {
    /**
     * An arbitrary byte stream (first byte: the read size, 1..256) through the length-prefixed
     * frame decoder in a pipeline, as a connection's reads would bring it.
     */
    @MethodSource("streams")
    @FuzzTest(maxDuration = "10s")
    void frameStream(byte[] input) {
        count("frameStream");
        if (input.length == 0) {
            return;
        }
        int readSize = 1 + (input[0] & 0xFF);
        RecordingAllocator alloc = new RecordingAllocator();
        EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(WIRE, STREAM_MAX_FRAME, FrameCodecTest.LIMITS, new AtomicLong()));
        channel.config().setAllocator(alloc);
        try {
            for (int at = 1; at < input.length; at += readSize) {
                int n = Math.min(readSize, input.length - at);
                try {
                    channel.writeInbound(alloc.heapBuffer(n).writeBytes(input, at, n));
                } catch (TooLongFrameException | CorruptedFrameException e) {
                    // Netty's framing refused a length: counted and logged by the node, stream continues
                } catch (DecoderException e) {
                    throw new AssertionError("the frame decoder failed with something other than a typed refusal", e);
                }
                for (Object message; (message = channel.readInbound()) != null; ) {
                    checkMessage(message);
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
        assertEquals(List.of(), alloc.unreleased(), "buffers not released");
    }
}
