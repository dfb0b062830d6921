package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.ChainState;
import io.rpcc.core.ChainingFunctionSource;
import io.rpcc.core.StaticNameResolver;
import io.rpcc.core.TypeRegistry;
import io.rpcc.server.RpccServer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The function the plugin checked and packaged runs unchanged at real servers, sandboxed. */
class CheckoutTest {
    @Test
    void thePackagedFunctionRunsAtTheServers() {
        TypeRegistry types = TypeRegistry.builder().registerAnnotated(Order.class).register(Receipt.class).build();
        StaticNameResolver names = new StaticNameResolver();
        try (RpccServer shop = start(names, RpccServer.builder("shop").types(types)
                     .service("order", id -> new Order((String) id, 0)));
             RpccServer pricing = start(names, RpccServer.builder("pricing").types(types)
                     .service("price", order -> 4_999L));
             RpccClient client = RpccClient.builder().name("client").resolver(names).types(types).build().start()) {
            ChainingFunctionSource checkout = ChainingFunctionSource.of(Checkout.class);
            // the source the plugin packaged (not src/main/java, of(Class)'s fallback)
            assertEquals(ChainingFunctionSource.javaResource(Checkout.class, "/META-INF/rpcc/functions/com/acme/Checkout.java"),
                    checkout);
            ChainResult result = client.runChain(ChainCall.to("shop", "order").params("o-1")
                    .chainingFunction(checkout).state(ChainState.empty()));
            assertEquals(new Receipt("o-1", 4_999L), result.value());
            assertEquals(List.of("shop", "pricing"), result.path());
        }
    }

    @Test
    void thePackagedSequentialChainRunsAtTheServers() {
        TypeRegistry types = TypeRegistry.builder().registerAnnotated(Order.class).register(Receipt.class).build();
        StaticNameResolver names = new StaticNameResolver();
        try (RpccServer shop = start(names, RpccServer.builder("shop").types(types)
                     .service("order", id -> new Order((String) id, 0)));
             RpccServer pricing = start(names, RpccServer.builder("pricing").types(types)
                     .services((Pricing) order -> 4_999L));
             RpccClient client = RpccClient.builder().name("client").resolver(names).types(types).build().start()) {
            ChainResult result = client.runChain(ChainCall.sequential(SequentialCheckout.class, "o-1"));
            assertEquals(new Receipt("o-1", 4_999L), result.value());
            assertEquals(List.of("shop", "pricing"), result.path());
        }
    }

    private static RpccServer start(StaticNameResolver names, RpccServer.Builder builder) {
        RpccServer server = builder.resolver(names).build().start();
        names.register(server.name(), server.address());
        return server;
    }
}
