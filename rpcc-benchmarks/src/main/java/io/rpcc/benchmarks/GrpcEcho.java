package io.rpcc.benchmarks;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerBuilder;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC-java echo server on loopback and a channel to it: the benchmarks' gRPC baseline. Bytes
 * in, the same bytes out, through a byte-array marshaller (no protobuf), so the comparison is of
 * the RPC stacks, not of serializers.
 */
final class GrpcEcho implements AutoCloseable {
    static final MethodDescriptor<byte[], byte[]> ECHO = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName("bench.Echo/Echo")
            .setRequestMarshaller(BytesMarshaller.INSTANCE)
            .setResponseMarshaller(BytesMarshaller.INSTANCE)
            .build();

    private final Server server;
    private final ManagedChannel channel;

    private GrpcEcho(Server server, ManagedChannel channel) {
        this.server = server;
        this.channel = channel;
    }

    /**
     * Starts a server and connects to it.
     *
     * @param direct run the handler on the transport thread ({@code directExecutor()}), as rpcc's
     *     {@code direct} server executor does; otherwise gRPC's default executor (a cached pool)
     */
    static GrpcEcho start(boolean direct) {
        ServerBuilder<?> b = ServerBuilder.forPort(0).addService(ServerServiceDefinition.builder("bench.Echo")
                .addMethod(ECHO, ServerCalls.asyncUnaryCall((byte[] request, io.grpc.stub.StreamObserver<byte[]> response) -> {
                    response.onNext(request);
                    response.onCompleted();
                })).build());
        if (direct) {
            b.directExecutor();
        }
        try {
            Server server = b.build().start();
            ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
            return new GrpcEcho(server, channel);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A new channel to this server, which the caller shuts down; {@code direct}: responses are
     * delivered on the transport thread ({@code directExecutor()}), else on gRPC's default executor.
     */
    ManagedChannel newChannel(boolean direct) {
        ManagedChannelBuilder<?> b = ManagedChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext();
        if (direct) {
            b.directExecutor();
        }
        return b.build();
    }

    /** One asynchronous unary call over {@code channel}. */
    static void call(io.grpc.Channel channel, byte[] request, io.grpc.stub.StreamObserver<byte[]> response) {
        ClientCalls.asyncUnaryCall(channel.newCall(ECHO, CallOptions.DEFAULT), request, response);
    }

    /** One blocking unary call. */
    byte[] call(byte[] request) {
        return ClientCalls.blockingUnaryCall(channel, ECHO, CallOptions.DEFAULT, request);
    }

    @Override
    public void close() {
        channel.shutdownNow();
        server.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private enum BytesMarshaller implements MethodDescriptor.Marshaller<byte[]> {
        INSTANCE;

        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
