package io.rpcc.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.rpcc.core.TypeRegistry;
import io.rpcc.core.internal.wire.FrameType;
import io.rpcc.core.internal.wire.Hello;
import io.rpcc.core.internal.wire.Serialization;
import io.rpcc.core.internal.wire.WireFormat;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;

/** A hand-written peer on a socket (plain or TLS): it sends a HELLO of its choosing and reads frames. */
final class RawPeer implements AutoCloseable {
    private static final int MAX_FRAME = 1 << 20;

    private final Socket socket;
    private final DataInputStream in;

    RawPeer(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
    }

    /** Sends a HELLO claiming to be {@code node}, listening at {@code host:port}. */
    void hello(String node, String host, int port) throws IOException {
        ByteBuf frame = new WireFormat(new Serialization(TypeRegistry.empty())).encode(new Hello(node, host, port, MAX_FRAME),
                MAX_FRAME);
        try {
            socket.getOutputStream().write(ByteBufUtil.getBytes(frame));
            socket.getOutputStream().flush();
        } finally {
            frame.release();
        }
    }

    /**
     * The type of the next frame, read within {@code millis}: {@code null} if none came in time,
     * {@code "closed"} if the node closed the connection.
     */
    String nextFrame(int millis) throws IOException {
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
            if (socket.isClosed() || e.getMessage() != null && (e.getMessage().contains("reset") || e.getMessage().contains("closed"))) {
                return "closed";
            }
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
