package io.rpcc.legacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.rpcc.core.TypeRegistry;
import io.rpcc.legacy.internal.MarshallerSerializer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@link LegacyGrpc} registers: message types once each, and which methods become which functions. */
class LegacyGrpcTypesTest {
    @Test
    void eachMessageClassIsRegisteredOnceAndWhatTheRegistryHeldIsKept() {
        TypeRegistry.Builder types = TypeRegistry.builder().register(Value.class); // the application's own choice
        LegacyGrpc.registerTypes(types, InventoryGrpc.getServiceDescriptor(), InventoryGrpc.getServiceDescriptor());
        List<TypeRegistry.Registration> registered = types.build().registrations();
        assertEquals(List.of(Value.class, Struct.class), registered.stream().map(TypeRegistry.Registration::type).toList());
        assertNull(registered.get(0).serializer(), "the application's registration stays");
        assertInstanceOf(MarshallerSerializer.class, registered.get(1).serializer());
    }

    @Test
    void unaryMethodsAndAliasesBecomeFunctionsStreamingOnesAreNamedAsSkipped() throws Exception {
        ManagedChannel channel = ManagedChannelBuilder.forAddress("127.0.0.1", 1).usePlaintext().build();
        try {
            LegacyGrpc.Builder b = LegacyGrpc.wrap(InventoryGrpc.getServiceDescriptor(), channel)
                    .alias("shop.Inventory/Stock", "stock");
            assertEquals(List.of("shop.Inventory/Reserve", "shop.Inventory/Stock", "stock"), List.copyOf(b.functions().keySet()));
            assertEquals(List.of("shop.Inventory/Watch"), b.skipped());
            IllegalArgumentException streaming = assertThrows(IllegalArgumentException.class,
                    () -> b.alias("shop.Inventory/Watch", "watch"));
            assertEquals("method shop.Inventory/Watch is SERVER_STREAMING: only unary methods become service functions",
                    streaming.getMessage());
            IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                    () -> b.alias("shop.Inventory/Nope", "nope"));
            assertEquals("service shop.Inventory has no method shop.Inventory/Nope (it has: [shop.Inventory/Reserve,"
                    + " shop.Inventory/Stock, shop.Inventory/Watch])", unknown.getMessage());
        } finally {
            channel.shutdownNow();
        }
    }
}
