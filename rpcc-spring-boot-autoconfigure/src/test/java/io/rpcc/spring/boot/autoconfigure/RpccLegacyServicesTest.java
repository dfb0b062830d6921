package io.rpcc.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainResult;
import io.rpcc.legacy.LegacyHttp;
import io.rpcc.legacy.LegacyIdentity;
import io.rpcc.server.RpccServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Legacy wrappers in Spring Boot: a {@code LegacyHttp.Builder} bean becomes the auto-configured server's
 * service function of its bean name, calling a real HTTP/JSON endpoint (the JDK's HttpServer), which
 * sees the chain's originator.
 */
class RpccLegacyServicesTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RpccAutoConfiguration.class));
    private HttpServer legacy;
    /** What the legacy endpoint saw of each request: path, authorization, originator. */
    private static final List<List<String>> SEEN = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startTheLegacyService() throws IOException {
        SEEN.clear();
        legacy = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        legacy.createContext("/quotes/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            SEEN.add(List.of(exchange.getRequestURI().getPath(),
                    String.valueOf(exchange.getRequestHeaders().getFirst("authorization")),
                    String.valueOf(exchange.getRequestHeaders().getFirst("x-rpcc-originator")), body));
            byte[] answer = "{\"cents\":4999,\"currency\":\"EUR\"}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("content-type", "application/json");
            exchange.sendResponseHeaders(200, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        });
        legacy.start();
    }

    @AfterEach
    void stopTheLegacyService() {
        legacy.stop(0);
    }

    @Test
    void aLegacyHttpBeanIsAServiceFunctionNamedByTheBeanAndTheEndpointSeesTheOriginator() {
        runner.withPropertyValues("rpcc.server.name=pricing", "legacy.url=http://127.0.0.1:"
                        + legacy.getAddress().getPort() + "/quotes/{sku}")
                .withUserConfiguration(LegacyPricing.class).run(context -> {
                    assertThat(context.getBean(RpccServer.class).services()).contains("quote");
                    RpccClient client = context.getBean(RpccClient.class);
                    ChainResult result = client.call("pricing", "quote", Map.of("sku", "KB-42", "quantity", 2)).join();
                    assertThat(result.value()).isEqualTo(Map.of("cents", 4999, "currency", "EUR"));
                    assertThat(SEEN).hasSize(1);
                    assertThat(SEEN.get(0).get(0)).isEqualTo("/quotes/KB-42");
                    assertThat(SEEN.get(0).get(1)).isEqualTo("Bearer pricing-token"); // no credential in the chain
                    assertThat(SEEN.get(0).get(2)).isEqualTo(client.name());
                    assertThat(SEEN.get(0).get(3)).contains("\"quantity\":2");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class LegacyPricing {
        /** The legacy pricing endpoint, as service function "quote". */
        @Bean
        LegacyHttp.Builder quote(org.springframework.core.env.Environment environment) {
            return LegacyHttp.endpoint("POST", environment.getRequiredProperty("legacy.url"))
                    .identity(LegacyIdentity.fromChain().orToken("pricing-token"));
        }
    }
}
