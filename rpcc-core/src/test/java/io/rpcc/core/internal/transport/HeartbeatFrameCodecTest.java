package io.rpcc.core.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainErrorCode;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ReturnRoute;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.HeartbeatFrame;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.QuietFrame;
import io.rpcc.core.internal.wire.ReturnPoint;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WireFormat;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HEARTBEAT frame (type 9) and the time-to-heartbeat header field (19): round trips and malformed input. */
class HeartbeatFrameCodecTest {
    static final int MAX = 4096;
    static final ChainSecret SECRET = ChainSecret.random();
    static final WireLimits LIMITS = new WireLimits(new WireLimits.InboundConnectionLimits(1024, 256, 64, 60),
            new WireLimits.ConnectionTimeouts(Duration.ofSeconds(10), Duration.ofMinutes(5), Duration.ofMinutes(2),
                    Duration.ofSeconds(30)), new WireLimits.BufferLimits(1L << 20, 1L << 20, 1L << 22, 1L << 19),
            new WireLimits.ValueLimits(255, 128), new WireLimits.OutboundConnectionLimits(1024, 64));
    final WireFormat wire = new WireFormat(new Serialization(TypeRegistry.empty()));
    final EmbeddedChannel channel = handshaken();

    private EmbeddedChannel handshaken() {
        EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(wire, MAX, LIMITS, new AtomicLong()));
        Hello hello = new Hello("peer", "127.0.0.1", 7000, MAX);
        ch.writeInbound(wire.encode(hello, MAX));
        assertEquals(hello, ch.readInbound());
        return ch;
    }

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    private Object roundTrip(Object message) {
        channel.writeInbound(wire.encode(message, MAX));
        return channel.readInbound();
    }

    @Test
    void theFrameTypeIsNineAndAppended() {
        assertEquals(9, FrameType.HEARTBEAT.wire());
        assertEquals(FrameType.HEARTBEAT, FrameType.fromWire((byte) 9));
    }

    @Test
    void heartbeatsRoundTripOnTheRootAndOnNestedBranchesWithTheirSiblingCounts() {
        for (HeartbeatFrame f : List.of(
                new HeartbeatFrame(7, SECRET, 1, "s1", BranchId.root(), List.of()),
                new HeartbeatFrame(Long.MAX_VALUE, SECRET, 300, "a-node", BranchId.of(2), List.of(3)),
                new HeartbeatFrame(9, SECRET, 4, "s", BranchId.of(1, 3), List.of(2, 0)))) {
            HeartbeatFrame got = assertInstanceOf(HeartbeatFrame.class, roundTrip(f));
            assertEquals(f.chainId(), got.chainId());
            assertEquals(f.hop(), got.hop());
            assertEquals(f.host(), got.host());
            assertEquals(f.branch(), got.branch());
            assertEquals(f.siblings(), got.siblings());
            assertEquals(true, SECRET.matches(got.secret()));
        }
    }

    @Test
    void aBranchIndexAboveItsSiblingCountOrTrailingBytesAreMalformedAndTheStreamStaysInStep() {
        ByteBuf good = wire.encode(new HeartbeatFrame(7, SECRET, 2, "s", BranchId.of(2), List.of(3)), MAX);
        byte[] bytes = new byte[good.readableBytes()];
        good.readBytes(bytes);
        good.release();
        byte[] owesFlag = bytes.clone();
        owesFlag[bytes.length - 1] = 2; // the owes-replies flag is 0 or 1
        bytes[bytes.length - 2] = 1; // 2 of 1
        byte[] trailing = Arrays.copyOf(bytes, bytes.length + 1);
        trailing[bytes.length - 2] = 3;
        trailing[3]++; // the length covers the extra byte
        QuietFrame after = new QuietFrame(5, SECRET, Credit.ONE);
        for (byte[] bad : List.of(bytes, trailing, owesFlag)) {
            channel.writeInbound(Unpooled.wrappedBuffer(bad));
            FrameDecoder.MalformedFrame m = assertInstanceOf(FrameDecoder.MalformedFrame.class, channel.readInbound());
            assertEquals(ChainErrorCode.MALFORMED_FRAME, m.reason().code());
            assertEquals(after, roundTrip(after));
        }
    }

    @Test
    void theTimeToHeartbeatRoundTripsInTheHeaderAndIsAbsentForChainsWithoutHeartbeats() {
        for (HeartbeatBudget hb : List.of(HeartbeatBudget.NONE, new HeartbeatBudget(3_000_000_000L, 2_800_000_000L),
                new HeartbeatBudget(1, -5_000_000_000L), new HeartbeatBudget(Long.MAX_VALUE, Long.MIN_VALUE))) {
            ChainHeader h = header().withHeartbeat(hb);
            ChainRequest got = assertInstanceOf(ChainRequest.class,
                    roundTrip(new ChainRequest(h, "p", ChainState.empty(), null)));
            assertEquals(null, got.decodeError());
            assertEquals(hb, got.header().heartbeat());
            assertEquals(h.budgetNanos(), got.header().budgetNanos(), "the field before it is unchanged");
        }
    }

    @Test
    void headersBuiltOnwardKeepTheTimeToHeartbeatUntilASenderSetsIt() {
        HeartbeatBudget hb = new HeartbeatBudget(1_000_000_000L, 400_000_000L);
        ChainHeader h = header().withHeartbeat(hb);
        assertEquals(hb, h.onward(new ChainSoFar(4, List.of(), List.of(), List.of(), Metadata.empty()), "g",
                ChainingFunctionSource.NONE, Credit.ONE, 5).heartbeat());
        assertEquals(hb, h.withBranch(BranchId.of(1)).heartbeat());
        assertEquals(hb, h.with(ChainingFunctionSource.NONE, List.<ReturnPoint>of()).heartbeat());
    }

    private static ChainHeader header() {
        return new ChainHeader(new ChainIdentity(42, SECRET, new NodeAddress("client-1", "127.0.0.1", 4000), 1),
                new ChainSoFar(3, List.of("a"), List.of(), List.of(), Metadata.empty()), "f",
                        ChainingFunctionSource.NONE, Credit.ONE,
                new ReturnRoute(new NodeAddress("client-1", "127.0.0.1", 4000), List.of(), BranchId.root()),
                        new ChainLimits(20, 1_500_000_000L, HeartbeatBudget.NONE));
    }
}
