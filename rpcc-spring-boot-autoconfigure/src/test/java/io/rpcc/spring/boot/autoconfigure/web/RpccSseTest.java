package io.rpcc.spring.boot.autoconfigure.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.rpcc.client.ChainCall;
import io.rpcc.client.RpccClient;
import io.rpcc.core.ChainContext;
import io.rpcc.core.RpccType;
import io.rpcc.spring.boot.RpccServerCustomizer;
import io.rpcc.spring.boot.web.RpccSse;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * A ReplySet as server-sent events from a Spring MVC controller on a real Tomcat (no Reactor in the
 * controller): a {@code reply} event per partial reply, then the {@code result}, or an {@code error}.
 */
class RpccSseTest {
    static final CountDownLatch ENDLESS_STOPPED = new CountDownLatch(1);
    private static ConfigurableApplicationContext app;
    private static String base;
    private final HttpClient http = HttpClient.newHttpClient();

    /** A partial reply, found by the default package scan of the application below. */
    @RpccType
    public record Progress(String step, int percent) {
    }

    /** A web application with an rpcc server "web" whose services send progress, and a controller. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class WebApplication {
        @Bean
        RpccServerCustomizer progressServices() {
            return builder -> builder
                    .service("work", params -> {
                        for (int i = 1; i <= 3; i++) {
                            ChainContext.current().preturn(new Progress("step " + i, i * 33));
                        }
                        return "finished " + params;
                    })
                    .service("endless", params -> {
                        try {
                            for (int i = 0; ; i++) {
                                ChainContext.current().preturn(new Progress("step " + i, 0));
                                Thread.sleep(20);
                            }
                        } finally {
                            ENDLESS_STOPPED.countDown();
                        }
                    })
                    .service("failingWork", params -> {
                        ChainContext.current().preturn(new Progress("step 1", 33));
                        throw new IllegalStateException("the disk is full");
                    });
        }

        @Bean
        ProgressController progressController(RpccClient rpcc) {
            return new ProgressController(rpcc);
        }
    }

    @RestController
    static class ProgressController {
        private final RpccClient rpcc;

        ProgressController(RpccClient rpcc) {
            this.rpcc = rpcc;
        }

        @GetMapping("/work/{job}")
        SseEmitter work(@PathVariable String job) {
            return RpccSse.emitter(rpcc.startChainWithReplies(ChainCall.to("web", "work").params(job), Progress.class));
        }

        @GetMapping("/endless")
        SseEmitter endless() {
            return RpccSse.emitter(rpcc.startChainWithReplies(ChainCall.to("web", "endless")
                    .timeout(Duration.ofSeconds(60)), Progress.class));
        }

        @GetMapping("/failing")
        SseEmitter failing() {
            return RpccSse.emitter(rpcc.startChainWithReplies(ChainCall.to("web", "failingWork"), Progress.class),
                    Duration.ofSeconds(20));
        }
    }

    @BeforeAll
    static void start() {
        app = new SpringApplicationBuilder(WebApplication.class).web(WebApplicationType.SERVLET)
                .run("--server.port=0", "--rpcc.server.name=web", "--spring.jmx.enabled=false");
        base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    void repliesThenTheResult() throws Exception {
        HttpResponse<String> response = get("/work/j1");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/event-stream"));
        List<String[]> events = events(response.body());
        assertThat(events).extracting(e -> e[0]).containsExactly("reply", "reply", "reply", "result");
        assertThat(events.get(0)[1]).isEqualTo("{\"step\":\"step 1\",\"percent\":33}");
        assertThat(events.get(2)[1]).isEqualTo("{\"step\":\"step 3\",\"percent\":99}");
        assertThat(events.get(3)[1]).isEqualTo("finished j1");
    }

    @Test
    void repliesThenTheErrorWithItsCode() throws Exception {
        List<String[]> events = events(get("/failing").body());
        assertThat(events).extracting(e -> e[0]).containsExactly("reply", "error");
        assertThat(events.get(1)[1]).contains("\"code\":\"SERVICE_FUNCTION_FAILED\"").contains("the disk is full")
                .contains("\"host\":\"web\"").contains("\"hop\":1");
    }

    @Test
    void anHttpClientThatGoesAwayCancelsTheChain() throws Exception {
        HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(URI.create(base + "/endless")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            assertThat(lines.readLine()).isEqualTo("event:reply");
        } // closes the connection: the next events cannot be written
        assertThat(ENDLESS_STOPPED.await(20, TimeUnit.SECONDS)).as("the producer's preturn threw: the chain was cancelled")
                .isTrue();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Accept", "text/event-stream")
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The events of an event stream: name and data (one data line each here). */
    private static List<String[]> events(String body) {
        List<String[]> events = new ArrayList<>();
        for (String block : body.split("\n\n")) {
            String name = "message";
            StringBuilder data = new StringBuilder();
            for (String line : block.split("\n")) {
                if (line.startsWith("event:")) {
                    name = line.substring(6).trim();
                } else if (line.startsWith("data:")) {
                    data.append(data.isEmpty() ? "" : "\n").append(line.substring(5));
                }
            }
            if (!block.isBlank()) {
                events.add(new String[] {name, data.toString()});
            }
        }
        return events;
    }
}
