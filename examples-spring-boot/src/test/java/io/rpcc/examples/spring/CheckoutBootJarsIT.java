package io.rpcc.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The sample as users deploy it: each application's Boot jar (built by spring-boot-maven-plugin's
 * repackage in {@code package}) started with {@code java -jar} in a process of its own, on the JDK that
 * runs this test (with the flags JDK 23+ wants), on free ports. The checkout application's endpoint
 * starts the chain with the {@code Checkout} chaining function, which the catalog's and shipping's
 * servers compile from its source inside their Boot jars (it names the application's types: {@code
 * PricedOrder}, {@code Shipment}, {@code Quote}), and streams the partial replies and the result as
 * server-sent events. The same applications also run the checkout written as a sequential chain, and a
 * catalogue file streamed from the checkout to the catalog: one start of the jars, several checks.
 */
class CheckoutBootJarsIT {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(180);
    private static final Path LOGS = Path.of("target", "it-logs");
    private static final Map<String, Process> APPS = new LinkedHashMap<>();
    private static String web;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startTheBootJars() throws Exception {
        Files.createDirectories(LOGS);
        int shipping = freePort();
        int catalog = freePort();
        int http = freePort();
        // shipping on Netty's native epoll (its library loaded from inside the Boot jar), the others on NIO:
        // the chain crosses both
        launch("shipping", "--rpcc.server.port=" + shipping, "--rpcc.server.transport=epoll");
        // the catalog runs the Checkout function in function-runner processes (catalog.properties); its pool says
        // when it runs one
        // and takes frames of at most 1MB: a catalogue file larger than that reaches it only as a data stream
        launch("catalog", "--rpcc.server.port=" + catalog, "--rpcc.peers.shipping=127.0.0.1:" + shipping,
                "--logging.level.io.rpcc.core.internal.function.FunctionRunnerPool=debug",
                "--rpcc.server.max-frame-size=1MB");
        // the first chain compiles the function at catalog and at shipping: give a loaded machine time
        launch("checkout", "--server.port=" + http, "--rpcc.peers.catalog=127.0.0.1:" + catalog,
                "--rpcc.client.timeout=60s");
        awaitLog("shipping", "transport epoll), services:");
        awaitLog("catalog", "rpcc server 'catalog' started on");
        awaitLog("checkout", "Started CheckoutApplication");
        web = "http://127.0.0.1:" + http;
    }

    @AfterAll
    static void stopTheBootJars() throws InterruptedException {
        APPS.values().forEach(Process::destroy); // SIGTERM: Boot's graceful shutdown, rpcc's drain
        for (Process app : APPS.values()) {
            if (!app.waitFor(30, TimeUnit.SECONDS)) {
                app.destroyForcibly();
            }
        }
    }

    /** The java of this JVM; JDK 23+ also gets the flags that Netty and Kryo need without warnings. */
    static List<String> javaCommand() {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        if (Runtime.version().feature() >= 23) {
            command.add("--enable-native-access=ALL-UNNAMED");
            command.add("--sun-misc-unsafe-memory-access=allow");
        }
        command.add("-XX:TieredStopAtLevel=1"); // starts faster on a busy machine
        return command;
    }

    private static void launch(String app, String... args) throws IOException {
        Path jar = Path.of(System.getProperty("rpcc.it.jars", "target/rpcc-examples-spring-boot") + "-" + app + ".jar");
        assertThat(jar).as("the Boot jar of %s (built by mvn package)", app).isRegularFile();
        List<String> command = javaCommand();
        command.add("-jar");
        command.add(jar.toAbsolutePath().toString());
        command.addAll(List.of(args));
        Path log = LOGS.resolve(app + ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        APPS.put(app, process);
    }

    private static void awaitLog(String app, String line) throws Exception {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Path log = LOGS.resolve(app + ".log");
        while (System.nanoTime() < deadline) {
            String text = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
            if (text.contains(line)) {
                return;
            }
            if (!APPS.get(app).isAlive()) {
                throw new AssertionError(app + " exited with " + APPS.get(app).exitValue() + " before \"" + line
                        + "\":\n" + tail(text));
            }
            Thread.sleep(200);
        }
        throw new AssertionError(app + " did not log \"" + line + "\" within " + START_TIMEOUT + ":\n"
                + tail(Files.readString(log, StandardCharsets.UTF_8)));
    }

    private static String tail(String text) {
        return text.length() <= 6000 ? text : "…" + text.substring(text.length() - 6000);
    }

    private static String logs() {
        StringBuilder all = new StringBuilder();
        for (String app : APPS.keySet()) {
            try {
                all.append("\n=== ").append(app).append(".log\n")
                        .append(tail(Files.readString(LOGS.resolve(app + ".log"), StandardCharsets.UTF_8)));
            } catch (IOException e) {
                all.append("\n=== ").append(app).append(": ").append(e);
            }
        }
        return all.toString();
    }

    @Test
    void aCheckoutStreamsItsQuotesThenTheShipment() throws Exception {
        HttpResponse<String> response = get("/checkout/o-1?sku=KB-42&quantity=2&country=FR");
        assertThat(response.statusCode()).as(logs()).isEqualTo(200);
        List<String[]> events = events(response.body());
        assertThat(events).as(response.body() + logs()).extracting(e -> e[0])
                .containsExactly("reply", "reply", "result");
        // replies from two servers arrive on two connections, in either order (docs/guides/multi-return.md)
        assertThat(List.of(events.get(0)[1], events.get(1)[1])).containsExactlyInAnyOrder(
                "{\"orderId\":\"o-1\",\"step\":\"priced\",\"totalCents\":9998}",
                "{\"orderId\":\"o-1\",\"step\":\"shipped\",\"totalCents\":9998}");
        assertThat(events.get(2)[1]).isEqualTo("{\"orderId\":\"o-1\",\"totalCents\":9998,\"carrier\":\"road\",\"days\":2}");
    }

    /**
     * The catalog's server runs the Checkout function, which takes the catalog's {@code PricedOrder} and
     * sends a {@code Quote} and the next hop back, in a function-runner process it started from its own
     * Boot jar (Boot's PropertiesLauncher running rpcc's runner main class over the jar's nested classes
     * and libraries).
     */
    @Test
    void theCatalogRunsTheCheckoutFunctionInARunnerStartedFromItsBootJar() throws Exception {
        HttpResponse<String> response = get("/checkout/o-3?sku=MOUSE-7&quantity=3&country=US");
        List<String[]> events = events(response.body());
        assertThat(events).as(response.body() + logs()).extracting(e -> e[0]).containsExactly("reply", "reply", "result");
        // the quotes come from two servers on two connections, in either order (the catalog's from its runner)
        assertThat(List.of(events.get(0)[1], events.get(1)[1])).containsExactlyInAnyOrder(
                "{\"orderId\":\"o-3\",\"step\":\"priced\",\"totalCents\":5997}",
                "{\"orderId\":\"o-3\",\"step\":\"shipped\",\"totalCents\":5997}");
        assertThat(events.get(2)[1]).isEqualTo("{\"orderId\":\"o-3\",\"totalCents\":5997,\"carrier\":\"air\",\"days\":5}");
        String catalog = Files.readString(LOGS.resolve("catalog.log"), StandardCharsets.UTF_8);
        assertThat(catalog).as(logs())
                .contains("node 'catalog': Java chaining functions run in function-runner processes")
                .contains("runner main class org.springframework.boot.loader.launch.PropertiesLauncher")
                .containsPattern("node 'catalog': chaining function \\([^)]*\\) ran in function runner pid \\d+");
        // its runners: child processes of the catalog's JVM, Boot's launcher told to run rpcc's runner over the jar
        assertThat(APPS.get("catalog").descendants()
                .map(p -> p.info().arguments().map(a -> String.join(" ", a)).orElse("")))
                .as(logs()).anySatisfy(args -> assertThat(args)
                        .contains("-Dloader.main=io.rpcc.core.internal.function.FunctionRunnerMain")
                        .contains("-catalog.jar").contains("PropertiesLauncher"));
        assertThat(Files.readString(LOGS.resolve("shipping.log"), StandardCharsets.UTF_8))
                .doesNotContain("function-runner processes"); // shipping runs it in its own JVM (the default)
    }

    /**
     * The express endpoint runs a static route, catalog then shipping, with the application's types; the
     * catalog, which runs Java chaining functions in runner processes, runs the route's step in its own
     * JVM (it is rpcc's code, not a function to compile or isolate).
     */
    @Test
    void theExpressEndpointRunsAStaticRouteAcrossTheBootJars() throws Exception {
        HttpResponse<String> response = get("/express/o-4?sku=KB-42&quantity=1&country=US");
        assertThat(response.statusCode()).as(response.body() + logs()).isEqualTo(200);
        assertThat(response.body()).as(logs()).isEqualTo("{\"orderId\":\"o-4\",\"totalCents\":4999,\"carrier\":\"air\",\"days\":5}");
    }

    /**
     * The checkout written as straight-line code ({@code SequentialCheckout}, typed calls on the sample's
     * {@code Pricing} and {@code Carrier} interfaces, which the catalog's and shipping's beans implement):
     * the same events, result and path as the continuation-style chain; the catalog replays it in a
     * function runner started from its Boot jar, shipping in its own JVM.
     */
    @Test
    void theSequentialCheckoutHasTheContinuationStyleChainsEventsResultAndPath() throws Exception {
        List<String[]> events = events(get("/sequential/o-7?sku=KB-42&quantity=2&country=FR").body());
        assertThat(events).as(logs()).extracting(e -> e[0]).containsExactly("reply", "reply", "result");
        assertThat(List.of(events.get(0)[1], events.get(1)[1])).containsExactlyInAnyOrder(
                "{\"orderId\":\"o-7\",\"step\":\"priced\",\"totalCents\":9998}",
                "{\"orderId\":\"o-7\",\"step\":\"shipped\",\"totalCents\":9998}");
        assertThat(events.get(2)[1]).isEqualTo("{\"orderId\":\"o-7\",\"totalCents\":9998,\"carrier\":\"road\",\"days\":2}");
        for (String style : List.of("sequential", "continuation")) {
            HttpResponse<String> outcome = get("/outcome/o-8?style=" + style + "&sku=MOUSE-7&quantity=1&country=US");
            assertThat(outcome.statusCode()).as(outcome.body() + logs()).isEqualTo(200);
            assertThat(outcome.body()).as(style)
                    .contains("\"shipment\":{\"orderId\":\"o-8\",\"totalCents\":1999,\"carrier\":\"air\",\"days\":5}")
                    .contains("\"path\":[\"catalog\",\"shipping\"]")
                    .contains("{\"orderId\":\"o-8\",\"step\":\"priced\",\"totalCents\":1999}")
                    .contains("{\"orderId\":\"o-8\",\"step\":\"shipped\",\"totalCents\":1999}");
        }
    }

    /**
     * A catalogue file of about 6MB, uploaded to the checkout application, goes on to the catalog as a
     * data stream while it is uploaded ({@code ChainCall.stream}), where a {@code @ServiceMethod} whose
     * last parameter is an {@code InputStream} reads it as it arrives and answers a {@code CatalogueImport}
     * (the sample's own type). The catalog takes frames of at most 1MB: the file could not go as one.
     */
    @Test
    void aCatalogueFileStreamsThroughTheCheckoutToTheCatalog() throws Exception {
        StringBuilder file = new StringBuilder();
        long totalCents = 0;
        int products = 400_000;
        for (int i = 0; i < products; i++) {
            long cents = 100 + i % 9_900;
            totalCents += cents;
            file.append("SKU-").append(i).append(';').append(cents).append('\n');
        }
        byte[] bytes = file.toString().getBytes(StandardCharsets.UTF_8);
        String sha256 = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(bytes));
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(web + "/catalogue/prices.csv"))
                .timeout(Duration.ofSeconds(60)).POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body() + logs()).isEqualTo(200);
        assertThat(bytes.length).isGreaterThan(5 << 20);
        assertThat(response.body()).as(logs()).isEqualTo("{\"name\":\"prices.csv\",\"products\":" + products
                + ",\"bytes\":" + bytes.length + ",\"sha256\":\"" + sha256 + "\",\"totalCents\":" + totalCents + "}");
    }

    @Test
    void aFailingHopEndsTheStreamWithAnErrorEventNamingTheApplication() throws Exception {
        List<String[]> events = events(get("/checkout/o-2?sku=NOPE").body());
        assertThat(events).as(logs()).extracting(e -> e[0]).containsExactly("error");
        assertThat(events.get(0)[1]).contains("\"code\":\"SERVICE_FUNCTION_FAILED\"").contains("no such product: NOPE")
                .contains("\"host\":\"catalog\"");
    }

    /**
     * The atomic checkout over HTTP: {@code POST /orders/...} takes the catalog's stock and books shipping's
     * shipment in one transaction across the two Boot jars ({@code TxMap}s in their {@code @RpccService}
     * beans); an order shipping refuses answers 409 with the chain's error, and the catalog's stock is as
     * before.
     */
    @Test
    void anAtomicCheckoutCommitsAtBothBootJarsOrAtNeither() throws Exception {
        int before = onHand(get("/stock/KB-42").body());
        HttpResponse<String> ordered = post("/orders/tx-1?sku=KB-42&quantity=2&country=FR");
        assertThat(ordered.statusCode()).as(ordered.body() + logs()).isEqualTo(200);
        assertThat(ordered.body()).isEqualTo("{\"orderId\":\"tx-1\",\"totalCents\":9998,\"carrier\":\"road\",\"days\":2}");
        assertThat(get("/stock/KB-42").body()).isEqualTo("{\"sku\":\"KB-42\",\"onHand\":" + (before - 2) + "}");

        String mice = get("/stock/MOUSE-7").body();
        HttpResponse<String> refused = post("/orders/tx-2?sku=MOUSE-7&quantity=1&country=AQ");
        assertThat(refused.statusCode()).as(refused.body() + logs()).isEqualTo(409);
        assertThat(refused.body()).contains("\"code\":\"ABORTED\"").contains("no carrier ships to AQ (order tx-2)")
                .contains("\"host\":\"shipping\"").contains("\"hop\":2");
        assertThat(get("/stock/MOUSE-7").body()).as("the catalog's stock is as before").isEqualTo(mice);
    }

    private static int onHand(String stockJson) {
        return Integer.parseInt(stockJson.replaceAll(".*\"onHand\":(\\d+).*", "$1"));
    }

    private HttpResponse<String> post(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(web + path)).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theClientOnlyCheckoutIsHealthyWithItsPeerReachable() throws Exception {
        HttpResponse<String> health = get("/actuator/health");
        assertThat(health.body()).as(logs()).contains("\"status\":\"UP\"")
                .contains("\"rpcc\":{").contains("\"catalog\":{\"reachable\":true");
    }

    /**
     * The checkout application has the actuator and Micrometer's Prometheus registry: after a chain, its
     * {@code /actuator/prometheus} shows rpcc's meters of the chains its client ran (RpccMetrics) and the
     * timers of the tracing's observations.
     */
    @Test
    void thePrometheusEndpointShowsTheClientsChains() throws Exception {
        assertThat(get("/express/o-6?sku=KB-42&quantity=1&country=US").statusCode()).as(logs()).isEqualTo(200);
        HttpResponse<String> prometheus = get("/actuator/prometheus");
        assertThat(prometheus.statusCode()).as(prometheus.body()).isEqualTo(200);
        assertThat(sample(prometheus.body(), "rpcc_chains_started_total")).as(prometheus.body()).isGreaterThanOrEqualTo(1);
        assertThat(sample(prometheus.body(), "rpcc_chains_completed_total")).as(prometheus.body()).isGreaterThanOrEqualTo(1);
        assertThat(sample(prometheus.body(), "rpcc_chain_duration_seconds_count")).as(prometheus.body())
                .isGreaterThanOrEqualTo(1);
        assertThat(prometheus.body()).contains("rpcc_client_chain_seconds_count{"); // the tracing's observations as timers
    }

    /** The sum of the samples of {@code name} (over all their tags) in a Prometheus page. */
    private static double sample(String page, String name) {
        return page.lines().filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(web + path)).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The events of an event stream: name and data. */
    private static List<String[]> events(String body) {
        List<String[]> events = new ArrayList<>();
        for (String block : body.replace("\r\n", "\n").split("\n\n")) {
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

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
