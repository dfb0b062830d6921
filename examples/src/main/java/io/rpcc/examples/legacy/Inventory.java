package io.rpcc.examples.legacy;

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
 * The legacy inventory's gRPC interface, {@code shop.Inventory}, as protoc's gRPC plug-in would
 * generate it ({@code InventoryGrpc}): a method descriptor with protobuf marshallers, and the
 * service descriptor. Its messages are protobuf's {@code google.protobuf.Struct}, so the example
 * needs no code generation step.
 *
 * <pre>
 * service Inventory {
 *   rpc Reserve(google.protobuf.Struct) returns (google.protobuf.Struct);  // {sku, quantity} -> {reservation, warehouse, ...}
 * }
 * </pre>
 */
final class Inventory {
    static final String SERVICE_NAME = "shop.Inventory";

    static final MethodDescriptor<Struct, Struct> RESERVE = MethodDescriptor.<Struct, Struct>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE_NAME, "Reserve"))
            .setRequestMarshaller(ProtoUtils.marshaller(Struct.getDefaultInstance()))
            .setResponseMarshaller(ProtoUtils.marshaller(Struct.getDefaultInstance()))
            .build();

    private static final ServiceDescriptor DESCRIPTOR = ServiceDescriptor.newBuilder(SERVICE_NAME).addMethod(RESERVE).build();

    private Inventory() {
    }

    static ServiceDescriptor getServiceDescriptor() {
        return DESCRIPTOR;
    }

    static ServerServiceDefinition bindService(BiConsumer<Struct, StreamObserver<Struct>> reserve) {
        return ServerServiceDefinition.builder(DESCRIPTOR)
                .addMethod(RESERVE, ServerCalls.asyncUnaryCall(reserve::accept))
                .build();
    }

    static Value text(String s) {
        return Value.newBuilder().setStringValue(s).build();
    }

    static Value number(double d) {
        return Value.newBuilder().setNumberValue(d).build();
    }
}
