package io.rpcc.testcontainers;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ContainerNetwork;
import io.rpcc.client.RpccClient;
import io.rpcc.core.NameResolver;
import io.rpcc.core.StaticNameResolver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.testcontainers.containers.GenericContainer;
import org.jspecify.annotations.Nullable;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * An rpcc node ({@code rpcc-node}'s image) in a Docker container, for integration tests.
 *
 * <pre>{@code
 * Network network = Network.newNetwork();
 * RpccNodeContainer a = new RpccNodeContainer("rpcc-node:0.1.0-SNAPSHOT", "node-a")
 *         .withNetwork(network).withServices(Inventory.class);
 * RpccNodeContainer b = new RpccNodeContainer("rpcc-node:0.1.0-SNAPSHOT", "node-b")
 *         .withNetwork(network).withServices(Pricing.class).withPeers(a);
 * a.withPeers(b);
 * Startables.deepStart(a, b).join();
 * RpccClient client = RpccNodeContainer.clientBuilder(a, b).build().start();
 * }</pre>
 *
 * <p><b>Two addresses, as {@code KafkaContainer} advertises two listeners.</b> Nodes name each
 * other, never sockets, and each node resolves names itself. On the container network a node is its
 * name: it is the container's network alias and its advertised host, and {@link #withPeers} gives
 * every node {@code name=name:7300} for its peers, so server-to-server hops stay on the container
 * network. A client in the test JVM resolves the same names to the mapped ports
 * ({@link #getHost()}:{@link #getMappedPort}(7300)) with {@link #clientResolver}. Results and
 * partial replies go from the last node straight back to the client at the address the client
 * advertises: {@link #clientBuilder} makes it listen on all interfaces and advertise
 * {@value #HOST_ALIAS}, which every node container resolves to the Docker host
 * ({@code --add-host host.docker.internal:host-gateway}; Docker Desktop resolves it natively).
 * ({@code Testcontainers.exposeHostPorts} would need the {@code testcontainers/sshd} image from a
 * registry; this needs none.) Since the client's connections reach the containers from an address
 * other than the one it advertises, the nodes run with {@code rpcc.limits.outbound-policy=any}
 * (they connect to whatever a chain names: a test's network is trusted); set it back to
 * {@code vouched} with {@link #withNodeProperty} to test that policy.
 *
 * <p>The image is {@code FROM scratch}, without a shell: the container is ready when the node prints
 * {@code rpcc node '<name>' ready at <host>:7300}; a node that exits first (a bad configuration) fails
 * the start at once with its output. Configuration goes in {@code RPCC_*} environment
 * variables ({@link #withNodeProperty}).
 *
 * <p><b>Faults.</b> {@link #kill()} (SIGKILL), {@link #pause()}/{@link #unpause()} (the processes
 * frozen, the container's network still up) and {@link #restart()} (SIGTERM, then the same container
 * again) act on a started node for fault tests. Docker maps new host ports when a container starts
 * again, so after {@code restart()} {@link #getMappedPort} and {@link #getClientAddress} are new; a client
 * from {@link #clientBuilder} resolves the nodes when it sends ({@link #liveClientResolver}) and so reaches
 * the restarted node; peers reach it by name on the container network as before.
 *
 * <p><b>Without a registry.</b> {@link #start()} first checks, in a second or so, that the image is in the
 * local Docker daemon (build it with {@code ./rpcc image}) and that Testcontainers' Ryuk can start, and
 * otherwise fails at once saying what to do ({@code TESTCONTAINERS_RYUK_DISABLED=true}); the image is
 * pulled only when it is not local and names a registry.
 */
public class RpccNodeContainer extends GenericContainer<RpccNodeContainer> {
    /** The image this class is made for; others must be declared compatible with it. */
    public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("rpcc-node");
    /** The port nodes listen on for rpcc. */
    public static final int RPCC_PORT = 7300;
    /** The port of the node's HTTP {@code /live}, {@code /ready} and {@code /metrics}. */
    public static final int HEALTH_PORT = 7301;
    /** Where the node loads service jars from. */
    public static final String SERVICES_DIRECTORY = "/opt/rpcc/services";
    /** The name node containers reach the Docker host (and so a client in the test JVM) by. */
    public static final String HOST_ALIAS = "host.docker.internal";

    private static final Pattern NODE_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    private final DockerImageName image;
    private final String nodeName;
    private final List<RpccNodeContainer> peers = new ArrayList<>();
    private final List<String> serviceClasses = new ArrayList<>();
    private int serviceJars;
    /** The container's state after {@link #restart()} (new host ports), until it is started anew or stopped. */
    private volatile @Nullable InspectContainerResponse restartedInfo;

    /** A node named {@code nodeName} from image {@code image} (e.g. {@code "rpcc-node:0.1.0"}). */
    public RpccNodeContainer(String image, String nodeName) {
        this(DockerImageName.parse(image), nodeName);
    }

    /**
     * A node named {@code nodeName} from {@code image}. The name is also the node's network alias
     * and advertised host, so it must be a valid host name: lower-case letters, digits and
     * {@code -}, at most 63 characters.
     */
    public RpccNodeContainer(DockerImageName image, String nodeName) {
        super(image);
        image.assertCompatibleWith(DEFAULT_IMAGE_NAME);
        this.image = image;
        if (!NODE_NAME.matcher(Objects.requireNonNull(nodeName, "nodeName")).matches()) {
            throw new IllegalArgumentException("node name '" + nodeName + "' is not a valid host name: the name is the"
                    + " node's network alias, so use lower-case letters, digits and '-' (at most 63 characters)");
        }
        this.nodeName = nodeName;
        withExposedPorts(RPCC_PORT, HEALTH_PORT);
        withNetworkAliases(nodeName);
        withExtraHost(HOST_ALIAS, "host-gateway");
        withNodeProperty("rpcc.name", nodeName);
        withNodeProperty("rpcc.port", Integer.toString(RPCC_PORT));
        withNodeProperty("rpcc.health.port", Integer.toString(HEALTH_PORT));
        withNodeProperty("rpcc.advertised-host", nodeName);
        // the client in the test JVM advertises host.docker.internal, but its connections reach the
        // containers through Docker's port mapping from another address, which the nodes could not
        // vouch for: a test's container network is trusted (withNodeProperty overrides it)
        withNodeProperty("rpcc.limits.outbound-policy", "any");
        waitingFor(new NodeReadyWaitStrategy(nodeName, 0));
        // a local image is never pulled again (whatever pull.policy says); a missing one only if it names a registry
        withImagePullPolicy(name -> !DockerPreflight.isLocal(name));
    }

    /**
     * Starts the node and waits for its ready line. First, without pulling anything, fails with a
     * {@link ContainerLaunchException} that says what to do if the image is not in the local Docker
     * daemon and names no registry ({@code ./rpcc image} builds it), or if Testcontainers' Ryuk is
     * enabled and its image is neither local nor pullable ({@code TESTCONTAINERS_RYUK_DISABLED=true}).
     */
    @Override
    public void start() {
        if (getContainerId() == null) {
            DockerPreflight.check(image);
        }
        super.start();
    }

    /**
     * Whether a Docker daemon answers, for a test's condition: unlike Testcontainers'
     * {@code DockerClientFactory.instance().isDockerAvailable()}, this does not start Ryuk, whose image
     * pull retries for minutes where no registry is reachable.
     */
    public static boolean isDockerAvailable() {
        return DockerPreflight.dockerAnswers();
    }

    /**
     * Whether {@code image} (e.g. {@code "rpcc-node:0.1.0-SNAPSHOT"}) is in the local Docker daemon, for a
     * test's condition (without starting Ryuk).
     */
    public static boolean isImageLocal(String image) {
        return DockerPreflight.isLocal(DockerImageName.parse(image));
    }

    /**
     * Kills the node's process at once ({@code docker kill}, SIGKILL): no drain, its connections are
     * reset, chains with a hop there fail, and new hops to it fail with a {@code HopUnreachableException}
     * naming it. The container stays (stopped) until {@link #restart()} or {@link #stop()}.
     */
    public void kill() {
        String id = requireCreated("kill");
        getDockerClient().killContainerCmd(id).exec();
        awaitNotRunning(id);
    }

    /**
     * Freezes the node's processes ({@code docker pause}): its connections stay open but nothing is
     * read or answered, as a node stuck in a long GC pause or on an overloaded machine. Its kernel still
     * accepts connections, but the node never answers the rpcc handshake: a peer sending a hop on a new
     * connection fails it with a {@code HopUnreachableException} naming the node after its
     * {@code rpcc.timeouts.connect} (5 s by default); on a connection opened before, peers notice when their
     * PINGs go unanswered (10 s + 5 s by default) and the chain's deadline applies. {@link #unpause()}
     * resumes it where it stopped.
     */
    public void pause() {
        getDockerClient().pauseContainerCmd(requireCreated("pause")).exec();
    }

    /** Resumes a node frozen by {@link #pause()}. */
    public void unpause() {
        getDockerClient().unpauseContainerCmd(requireCreated("unpause")).exec();
    }

    /**
     * Stops the node gracefully if it runs ({@code docker stop}: SIGTERM, the node drains for
     * {@code rpcc.shutdown.grace}, then up to {@code stopTimeout} for Docker to wait), starts the same
     * container again and waits for its ready line. A killed or stopped node is just started; a paused
     * one is resumed first. The container keeps its name, network alias and logs, but Docker maps
     * <em>new host ports</em> (and the container may get another address on the network): read
     * {@link #getMappedPort}/{@link #getClientAddress} again after this, or use a client from
     * {@link #clientBuilder}, whose resolver does ({@link #liveClientResolver}). A
     * {@link StaticNameResolver} from {@link #clientResolver} must be updated:
     * {@code resolver.register(node.getNodeName(), node.getClientAddress())}. Peers resolve the node's
     * name on the container network again (the JDK caches a name's address for 30 s).
     *
     * @param stopTimeout how long {@code docker stop} waits before it kills the node
     */
    public void restart(Duration stopTimeout) {
        String id = requireCreated("restart");
        InspectContainerResponse.ContainerState state = getDockerClient().inspectContainerCmd(id).exec().getState();
        if (Boolean.TRUE.equals(state.getPaused())) {
            unpause();
        }
        if (Boolean.TRUE.equals(state.getRunning())) {
            getDockerClient().stopContainerCmd(id).withTimeout((int) Math.max(1, stopTimeout.toSeconds())).exec();
        }
        int readyLinesBefore = NodeReadyWaitStrategy.readyLines(getLogs(), nodeName);
        restartedInfo = null;
        getDockerClient().startContainerCmd(id).exec();
        restartedInfo = getDockerClient().inspectContainerCmd(id).exec();
        new NodeReadyWaitStrategy(nodeName, readyLinesBefore).waitUntilReady(this);
    }

    /** {@link #restart(Duration)} giving {@code docker stop} 30 s. */
    public void restart() {
        restart(Duration.ofSeconds(30));
    }

    /** The container's state as of its last start, or as of its last {@link #restart()} (with the new host ports). */
    @Override
    public InspectContainerResponse getContainerInfo() {
        InspectContainerResponse restarted = restartedInfo;
        return restarted != null ? restarted : super.getContainerInfo();
    }

    @Override
    protected void containerIsStarting(InspectContainerResponse containerInfo) {
        restartedInfo = null;
        super.containerIsStarting(containerInfo);
    }

    @Override
    protected void containerIsStopped(InspectContainerResponse containerInfo) {
        restartedInfo = null;
        super.containerIsStopped(containerInfo);
    }

    private String requireCreated(String action) {
        String id = getContainerId();
        if (id == null) {
            throw new IllegalStateException("node '" + nodeName + "' is not started: start it before " + action);
        }
        return id;
    }

    private void awaitNotRunning(String id) {
        try {
            getDockerClient().waitContainerCmd(id).start().awaitStatusCode(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (RuntimeException e) {
            throw new ContainerLaunchException("node '" + nodeName + "' did not stop within 30 s of docker kill", e);
        }
    }

    /**
     * Sets a node configuration key (e.g. {@code rpcc.shutdown.grace}) through its environment
     * variable ({@code RPCC_SHUTDOWN_GRACE}: upper case, {@code .} and {@code -} become {@code _}).
     */
    public RpccNodeContainer withNodeProperty(String key, String value) {
        return withEnv(environmentVariable(key), value);
    }

    /**
     * Loads the service functions of {@code jar} (a jar of {@code @ServiceMethod} classes listed
     * with {@link #withServiceClasses} and/or {@code ServiceModule} providers).
     */
    public RpccNodeContainer withServices(Path jar) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("no service jar at " + jar.toAbsolutePath());
        }
        // readable by the node's user (uid 10001) whatever the file's own mode (temporary files are 0600)
        return withCopyFileToContainer(MountableFile.forHostPath(jar, 0644), SERVICES_DIRECTORY + "/" + jar.getFileName());
    }

    /**
     * Loads these classes of the test's class path as services: each is packed with its nested classes
     * into a jar in the node's services directory. A class implementing {@code io.rpcc.node.ServiceModule}
     * configures the node; any other must have a public no-argument constructor and
     * {@code @ServiceMethod} methods. Their dependencies must be on the node's own class path (the
     * rpcc API, the JDK) or be passed too.
     */
    public RpccNodeContainer withServices(Class<?>... classes) {
        List<Class<?>> list = Arrays.asList(classes);
        byte[] jar = ServiceJar.of(list);
        list.stream().filter(c -> !ServiceJar.isServiceModule(c)).map(Class::getName).forEach(serviceClasses::add);
        serviceJars++;
        return withCopyToContainer(Transferable.of(jar), SERVICES_DIRECTORY + "/test-services-" + serviceJars + ".jar");
    }

    /**
     * Lists classes of the service jars (by name) whose {@code @ServiceMethod}s the node registers
     * ({@code rpcc.services.classes}).
     */
    public RpccNodeContainer withServiceClasses(String... classNames) {
        serviceClasses.addAll(Arrays.asList(classNames));
        return self();
    }

    /** Makes the node a chaining-function repository, storing functions in the container. */
    public RpccNodeContainer withRepository() {
        return withNodeProperty("rpcc.repository.enabled", "true");
    }

    /**
     * Lets this node reach {@code others} by name over the container network ({@code rpcc.peers} =
     * {@code name=name:7300,...}). All of them must share this container's network.
     */
    public RpccNodeContainer withPeers(RpccNodeContainer... others) {
        for (RpccNodeContainer other : others) {
            if (other != this && !peers.contains(other)) {
                peers.add(other);
            }
        }
        return self();
    }

    @Override
    protected void configure() {
        if (!peers.isEmpty()) {
            for (RpccNodeContainer peer : peers) {
                if (getNetwork() == null || peer.getNetwork() != getNetwork()) {
                    throw new IllegalStateException("node '" + nodeName + "' and its peer '" + peer.nodeName
                            + "' must share a network: call withNetwork(network) on both with the same Network");
                }
            }
            withNodeProperty("rpcc.peers", peers.stream()
                    .map(peer -> peer.nodeName + "=" + peer.getNetworkAddress())
                    .collect(Collectors.joining(",")));
        }
        if (!serviceClasses.isEmpty()) {
            withNodeProperty("rpcc.services.classes", String.join(",", serviceClasses));
        }
    }

    /** The node's name (also its network alias and advertised host). */
    public String getNodeName() {
        return nodeName;
    }

    /** {@code name:7300}: where other containers on the network reach this node. */
    public String getNetworkAddress() {
        return nodeName + ":" + RPCC_PORT;
    }

    /** Where the test JVM reaches this node: {@link #getHost()} and the port mapped to 7300. */
    public InetSocketAddress getClientAddress() {
        return new InetSocketAddress(getHost(), getMappedPort(RPCC_PORT));
    }

    /** The address of the node's HTTP health endpoint, from the test JVM ({@code http://host:port}). */
    public String getHealthUrl() {
        return "http://" + getHost() + ":" + getMappedPort(HEALTH_PORT);
    }

    /**
     * The address of the node's Prometheus endpoint, from the test JVM ({@code http://host:port/metrics},
     * on the health port): the JVM's meters and rpcc's, unless {@code rpcc.metrics.enabled=false}.
     */
    public String getMetricsUrl() {
        return getHealthUrl() + "/metrics";
    }

    /**
     * The node's meters now, in Prometheus' text format, as a scraper reads them from {@link #getMetricsUrl()}.
     *
     * @throws IllegalStateException if the node does not answer them (not running, or
     *         {@code rpcc.metrics.enabled=false}), with what it answered
     */
    public String getMetrics() {
        String url = getMetricsUrl();
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("node '" + nodeName + "' answered " + response.statusCode() + " at " + url
                        + ": " + response.body().strip() + " (are its metrics off? rpcc.metrics.enabled)");
            }
            return response.body();
        } catch (IOException e) {
            throw new IllegalStateException("node '" + nodeName + "' did not answer at " + url + ": " + e
                    + " (is it running?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the metrics of node '" + nodeName + "'", e);
        }
    }

    /**
     * The Docker network gateway of this container: the address of the Docker host on the
     * container's network (an alternative to {@value #HOST_ALIAS} for a client to advertise).
     */
    public String getHostGatewayAddress() {
        InspectContainerResponse info = getContainerInfo();
        if (info == null) {
            throw new IllegalStateException("node '" + nodeName + "' is not started");
        }
        Map<String, ContainerNetwork> networks = info.getNetworkSettings().getNetworks();
        return networks.values().stream()
                .filter(n -> getNetwork() == null || getNetwork().getId().equals(n.getNetworkID()))
                .map(ContainerNetwork::getGateway)
                .filter(Objects::nonNull)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("node '" + nodeName + "' has no network gateway"));
    }

    /**
     * A resolver for a client in the test JVM: each node's name to its {@link #getClientAddress()}.
     * The nodes must be started; register more names on the result if the client needs them.
     */
    public static StaticNameResolver clientResolver(RpccNodeContainer... nodes) {
        StaticNameResolver resolver = new StaticNameResolver();
        for (RpccNodeContainer node : nodes) {
            if (!node.isRunning()) {
                throw new IllegalStateException("node '" + node.nodeName + "' is not running: start the containers"
                        + " before making a client resolver (their ports are mapped at start)");
            }
            resolver.register(node.nodeName, node.getClientAddress());
        }
        return resolver;
    }

    /**
     * A resolver for a client in the test JVM that looks up each node's {@link #getClientAddress()} when
     * the client sends to it, so that it follows a {@link #restart()} (new host ports). It knows only
     * these nodes' names, and resolves a name once its container was started: a killed or paused node
     * resolves to its last address, where the client's hop then fails typed ({@code HopUnreachableException}).
     */
    public static NameResolver liveClientResolver(RpccNodeContainer... nodes) {
        Map<String, RpccNodeContainer> byName = new java.util.LinkedHashMap<>();
        for (RpccNodeContainer node : nodes) {
            byName.put(node.nodeName, node);
        }
        return name -> {
            RpccNodeContainer node = byName.get(name);
            if (node == null || node.getContainerId() == null) {
                return Optional.empty();
            }
            try {
                return Optional.of(node.getClientAddress());
            } catch (RuntimeException e) { // no ports mapped (never started)
                return Optional.empty();
            }
        };
    }

    /**
     * A client builder for the test JVM: it resolves the nodes with {@link #liveClientResolver}, listens on
     * all interfaces (any free port) and advertises {@value #HOST_ALIAS}, so that results and partial
     * replies come straight back to it from the containers. Add types, timeouts, a repository as usual.
     */
    public static RpccClient.Builder clientBuilder(RpccNodeContainer... nodes) {
        for (RpccNodeContainer node : nodes) {
            if (!node.isRunning()) {
                throw new IllegalStateException("node '" + node.nodeName + "' is not running: start the containers"
                        + " before making a client builder (their ports are mapped at start)");
            }
        }
        return RpccClient.builder()
                .resolver(liveClientResolver(nodes))
                .listen("0.0.0.0", 0)
                .advertisedHost(HOST_ALIAS);
    }

    static String environmentVariable(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }
}
