package io.rpcc.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.core.StaticRoute;
import io.rpcc.server.RpccServer;
import io.rpcc.spring.boot.autoconfigure.TestServices.Greeter;
import io.rpcc.spring.boot.autoconfigure.TestServices.Inventory;
import io.rpcc.spring.boot.autoconfigure.TestServices.Order;
import io.rpcc.spring.boot.autoconfigure.TestServices.ShoutAspect;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

/**
 * A whole Spring Boot application (auto-configuration found through AutoConfiguration.imports, AOP
 * from Boot's own auto-configuration) with rpcc on a free port, running a real two-hop chain.
 */
@SpringBootTest(classes = RpccSpringBootTest.Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
        properties = {"rpcc.server.name=boot", "rpcc.server.port=0", "rpcc.types=io.rpcc.spring.boot.autoconfigure.TestServices$Order"})
class RpccSpringBootTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({Inventory.class, Greeter.class, ShoutAspect.class})
    static class Application {
    }

    @Autowired
    RpccServer server;

    @Autowired
    RpccClient client;

    @Test
    void aChainRunsThroughTheApplicationsServer() {
        assertThat(server.address().getPort()).isPositive();
        ChainResult stock = client.runChain(ChainCall.to("boot", "stock").params(new Order("kb-42", 2)));
        assertThat(stock.value()).isEqualTo(10);
        // two hops: stock's result (10) is passed on... to greet, which takes a String: so a route of pings
        ChainResult route = client.runChain(ChainCall.along(StaticRoute.of(StaticRoute.hop("boot", "ping"),
                StaticRoute.hop("boot", "greet")), null));
        assertThat(route.value()).isEqualTo("HELLO PONG"); // Boot's AopAutoConfiguration proxied Greeter
        assertThat(route.path()).containsExactly("boot", "boot");
    }
}
