package io.rpcc.legacy;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.util.function.BiConsumer;

/**
 * A legacy gRPC service, {@code shop.Inventory}, written as protoc's gRPC plug-in writes a stub
 * class ({@code XGrpc}): method descriptors with protobuf marshallers and a service descriptor. Its
 * messages are protobuf's own {@code google.protobuf.Struct}, so the test needs no code generation.
 */
final class InventoryGrpc {
    static final String SERVICE_NAME = "shop.Inventory";

    /** {@code rpc Reserve(google.protobuf.Struct) returns (google.protobuf.Struct)}. */
    static final MethodDescriptor<Struct, Struct> RESERVE = MethodDescriptor.<Struct, Struct>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "Reserve"))
            .setRequestMarshaller(ProtoUtils.marshaller(Struct.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(Struct.getDefaultInstance()))
            .build();

    /** {@code rpc Stock(google.protobuf.Value) returns (google.protobuf.Value)}: idempotent. */
    static final MethodDescriptor<Value, Value> STOCK = MethodDescriptor.<Value, Value>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "Stock"))
            .setRequestMarshaller(ProtoUtils.marshaller(Value.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(Value.getDefaultInstance()))
            .setIdempotent(true)
            .build();

    /** {@code rpc Watch(google.protobuf.Value) returns (stream google.protobuf.Value)}: not wrapped. */
    static final MethodDescriptor<Value, Value> WATCH = MethodDescriptor.<Value, Value>newBuilder()
            .setType(MethodDescriptor.MethodType.SERVER_STREAMING)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "Watch"))
            .setRequestMarshaller(ProtoUtils.marshaller(Value.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(Value.getDefaultInstance()))
            .build();

    private static final ServiceDescriptor DESCRIPTOR = ServiceDescriptor.newBuilder(SERVICE_NAME)
            .addMethod(RESERVE).addMethod(STOCK).addMethod(WATCH).build();

    private InventoryGrpc() {
    }

    static ServiceDescriptor getServiceDescriptor() {
        return DESCRIPTOR;
    }

    /** The server side, as a generated {@code ImplBase.bindService()} would give it. */
    static ServerServiceDefinition bindService(BiConsumer<Struct, StreamObserver<Struct>> reserve,
                                               BiConsumer<Value, StreamObserver<Value>> stock) {
        return ServerServiceDefinition.builder(DESCRIPTOR)
                .addMethod(RESERVE, ServerCalls.asyncUnaryCall(reserve::accept))
                .addMethod(STOCK, ServerCalls.asyncUnaryCall(stock::accept))
                .addMethod(WATCH, ServerCalls.asyncServerStreamingCall((Value v, StreamObserver<Value> out) -> {
                    out.onNext(v);
                    out.onCompleted();
                }))
                .build();
    }
}
