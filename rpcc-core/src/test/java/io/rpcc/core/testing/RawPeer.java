package io.rpcc.core.testing;

import com.esotericsoftware.kryo.io.Output;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.rpcc.core.BranchId;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.Metadata;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.Credit;
import io.rpcc.core.internal.wire.ChainHeader;
import io.rpcc.core.internal.wire.ChainSoFar;
import io.rpcc.core.internal.wire.ChainIdentity;
import io.rpcc.core.internal.wire.ReturnRoute;
import io.rpcc.core.internal.wire.ChainLimits;
import io.rpcc.core.internal.wire.HeartbeatBudget;
import io.rpcc.core.internal.wire.ChainRequest;
import io.rpcc.core.internal.wire.ChainSecret;
import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.NodeAddress;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.VersionRange;
import io.rpcc.core.internal.wire.WireFormat;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.List;

/**
 * A hostile peer: speaks the rpcc protocol over a socket (plain or TLS), with frames built by rpcc's
 * own encoder or by hand, and reads what the node answers.
 */
public final class RawPeer implements AutoCloseable {
    public static final int MAX = 1 << 20;
    public static final WireFormat WIRE = new WireFormat(new Serialization(TypeRegistry.empty(), 100_000, r -> { }));

    public final String name;
    public final Socket socket;
    /**
     * Where this peer listens, as an originator must: a node sends results, errors and replies only
     * over a connection it opens itself, to the address in the chain's header.
     */
    public final ServerSocket listener;
    private final OutputStream out;
    private final DataInputStream in;
    private Socket back;
    private DataInputStream backIn;

    public RawPeer(String name, InetSocketAddress node) throws IOException {
        this(name, node, null);
    }

    /** Connects to {@code node}, from {@code localAddress} if not null. */
    public RawPeer(String name, InetSocketAddress node, InetAddress localAddress) throws IOException {
        this(name, connect(node, localAddress, 0));
    }

    /**
     * Connects to {@code node} with a socket receive buffer of {@code receiveBuffer} bytes, set before
     * it connects (a peer that means not to read keeps the node's bytes in the node).
     */
    public RawPeer(String name, InetSocketAddress node, int receiveBuffer) throws IOException {
        this(name, connect(node, null, receiveBuffer));
    }

    /** A peer on an open {@code socket} (plain or TLS) that will claim names of its choosing. */
    public RawPeer(Socket socket) throws IOException {
        this(null, socket);
    }

    private RawPeer(String name, Socket socket) throws IOException {
        this.name = name;
        this.socket = socket;
        // where it listens is the address it connects from: a node connects only to addresses vouched
        // for, and the address a request came from is (OutboundPolicy.VOUCHED)
        this.listener = name == null ? null : new ServerSocket(0, 50, socket.getLocalAddress());
        socket.setSoTimeout(10_000);
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
    }

    private static Socket connect(InetSocketAddress node, InetAddress localAddress, int receiveBuffer) throws IOException {
        Socket socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        if (localAddress != null) {
            socket.bind(new InetSocketAddress(localAddress, 0));
        }
        socket.connect(node, 5000);
        return socket;
    }

    public static byte[] bytes(Object message) {
        ByteBuf buf = WIRE.encode(message, MAX);
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    public RawPeer send(byte[]... frames) throws IOException {
        for (byte[] f : frames) {
            out.write(f);
        }
        out.flush();
        return this;
    }

    /** Sends a HELLO claiming to be {@code node}, listening at {@code host:port}. */
    public RawPeer hello(String node, String host, int port) throws IOException {
        return send(bytes(new Hello(node, host, port, MAX)));
    }

    /** Sends a HELLO of this peer announcing protocol {@code versions}. */
    public RawPeer hello(VersionRange versions) throws IOException {
        return send(bytes(new Hello(versions, name, host(), listenPort(), MAX)));
    }

    /** A HELLO in the layout of protocol version 2 (version byte 2, no version range), as rpcc 2 sent it. */
    public static byte[] helloOfVersion2(String node, String host, int port) {
        Output out = new Output(256);
        out.writeInt(0);
        out.writeByte(2);
        out.writeByte(FrameType.HELLO.wire());
        out.writeString(node);
        out.writeString(host);
        out.writeVarInt(port, true);
        out.writeVarInt(MAX, true);
        byte[] frame = out.toBytes();
        int length = frame.length - 4;
        frame[0] = (byte) (length >>> 24);
        frame[1] = (byte) (length >>> 16);
        frame[2] = (byte) (length >>> 8);
        frame[3] = (byte) length;
        return frame;
    }

    /** The next frame the node sends on this peer's connection, decoded. */
    public Object readFrame() throws IOException {
        return readFrom(in);
    }

    /** Reads and decodes one frame from {@code from}. */
    public static Object readFrame(DataInputStream from) throws IOException {
        return readFrom(from);
    }

    /**
     * The type of the next frame, read within {@code millis}: {@code null} if none came in time,
     * {@code "closed"} if the node closed the connection.
     */
    public String nextFrame(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            int length = in.readInt();
            byte[] body = new byte[length];
            in.readFully(body);
            FrameType type = FrameType.fromWire(body[1]);
            return type == null ? "type " + body[1] : type.name();
        } catch (SocketTimeoutException e) {
            return null;
        } catch (EOFException e) {
            return "closed";
        } catch (IOException e) {
            if (socket.isClosed() || e.getMessage() != null
                    && (e.getMessage().contains("reset") || e.getMessage().contains("closed"))) {
                return "closed";
            }
            throw e;
        }
    }

    public RawPeer hello() throws IOException {
        return send(bytes(new Hello(name, host(), listenPort(), MAX)));
    }

    /** The host this peer advertises: the address it connects from (where it listens). */
    public String host() {
        return socket.getLocalAddress().getHostAddress();
    }

    private int listenPort() {
        return listener != null ? listener.getLocalPort() : socket.getLocalPort();
    }

    /**
     * The connection the node opened back to this peer's listener, after the HELLO exchange on it;
     * waits for the node to dial.
     */
    public RawPeer backChannel() throws IOException {
        if (back == null) {
            listener.setSoTimeout(10_000);
            back = listener.accept();
            back.setSoTimeout(10_000);
            backIn = new DataInputStream(back.getInputStream());
            Object hello = readFrom(backIn);
            if (!(hello instanceof Hello)) {
                throw new IllegalStateException("expected the node's HELLO on its connection back, got " + hello);
            }
            back.getOutputStream().write(bytes(new Hello(name, host(), listenPort(), MAX)));
            back.getOutputStream().flush();
        }
        return this;
    }

    /**
     * Starts reading (and discarding) everything the node sends on its connection back, on a thread of
     * its own that ends when the connection does; for a peer that did not read until now.
     */
    public Thread drainBackChannel() throws IOException {
        backChannel();
        return Thread.ofPlatform().daemon().name("raw-peer-drain").start(() -> {
            byte[] sink = new byte[64 * 1024];
            try {
                back.setSoTimeout(0);
                while (backIn.read(sink) >= 0) {
                    // discarded
                }
            } catch (IOException e) {
                // closed
            }
        });
    }

    /** The next frame the node sends on its connection back to this peer (see {@link #backChannel}), decoded. */
    public Object readBackFrame() throws IOException {
        backChannel();
        return readFrom(backIn);
    }

    /** Sends HELLO and reads the node's HELLO. */
    public RawPeer handshake() throws IOException {
        hello();
        Object answer = readFrom(in);
        if (!(answer instanceof Hello)) {
            throw new IllegalStateException("expected the node's HELLO, got " + answer);
        }
        return this;
    }

    /** A REQUEST for {@code function} with {@code params}, whose originator is this peer. */
    public ChainRequest request(long id, String function, Object params) {
        return request(id, function, params, Credit.ONE);
    }

    /** A REQUEST for {@code function} with {@code params} carrying {@code credit}, whose originator is this peer. */
    public ChainRequest request(long id, String function, Object params, Credit credit) {
        return new ChainRequest(header(id, function, host(), listenPort(), credit), params, ChainState.empty(),
                null);
    }

    public ChainHeader header(long id, String function, String originHost, int originPort) {
        return header(id, function, originHost, originPort, Credit.ONE);
    }

    public ChainHeader header(long id, String function, String originHost, int originPort, Credit credit) {
        return header(id, function, new NodeAddress(name, originHost, originPort), credit);
    }

    /** A REQUEST for {@code function} whose originator (where its result goes) is {@code origin}. */
    public ChainRequest requestFrom(NodeAddress origin, long id, String function, Object params) {
        return new ChainRequest(header(id, function, origin, Credit.ONE), params, ChainState.empty(), null);
    }

    private static ChainHeader header(long id, String function, NodeAddress origin, Credit credit) {
        return new ChainHeader(new ChainIdentity(id, ChainSecret.random(), origin, 1),
                new ChainSoFar(1, List.of(), List.of(), List.of(), Metadata.empty()), function,
                        ChainingFunctionSource.NONE, credit,
                new ReturnRoute(origin, List.of(), BranchId.root()),
                        new ChainLimits(10, ChainHeader.NO_DEADLINE, HeartbeatBudget.NONE));
    }

    /** A valid REQUEST frame whose params and state (the last two bytes, 0 0) are replaced by {@code tail}. */
    public byte[] requestEndingWith(long id, String function, byte[] tail) {
        byte[] valid = bytes(request(id, function, null));
        byte[] hostile = Arrays.copyOf(valid, valid.length - 2 + tail.length);
        System.arraycopy(tail, 0, hostile, valid.length - 2, tail.length);
        int length = hostile.length - 4;
        hostile[0] = (byte) (length >>> 24);
        hostile[1] = (byte) (length >>> 16);
        hostile[2] = (byte) (length >>> 8);
        hostile[3] = (byte) length;
        return hostile;
    }

    /** The next frame the node sends this peer as an originator (on its connection back), decoded. */
    public Object read() throws IOException {
        backChannel();
        return readFrom(backIn);
    }

    private static Object readFrom(DataInputStream from) throws IOException {
        int length = from.readInt();
        byte[] frame = new byte[length];
        from.readFully(frame);
        return WIRE.decode(Unpooled.wrappedBuffer(frame));
    }

    /** Whether the node closes the connection within {@code millis} (frames before the end are skipped). */
    public boolean closedWithin(long millis) throws IOException {
        Socket socket = back != null ? back : this.socket;
        DataInputStream in = back != null ? backIn : this.in;
        socket.setSoTimeout((int) millis);
        long deadline = System.nanoTime() + millis * 1_000_000;
        try {
            while (System.nanoTime() < deadline) {
                if (in.read(new byte[4096]) < 0) {
                    return true;
                }
            }
            return false;
        } catch (EOFException | SocketException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        if (back != null) {
            back.close();
        }
        if (listener != null) {
            listener.close();
        }
    }
}
