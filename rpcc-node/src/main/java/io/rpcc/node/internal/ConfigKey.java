package io.rpcc.node.internal;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Every configuration key of the standalone node, with its default ({@code null}: none). The
 * table in docs/reference/node-properties.md documents each one.
 */
public enum ConfigKey {
    NAME("rpcc.name", null),
    BIND("rpcc.bind", "0.0.0.0"),
    PORT("rpcc.port", "7300"),
    ADVERTISED_HOST("rpcc.advertised-host", null),
    TRANSPORT("rpcc.transport", "nio"),
    PEERS("rpcc.peers", ""),
    REPOSITORY_ENABLED("rpcc.repository.enabled", "false"),
    REPOSITORY_DIRECTORY("rpcc.repository.directory", "functions"),
    PROXY_ENABLED("rpcc.proxy.enabled", "false"),
    PROXY_NODE("rpcc.proxy.node", null),
    SERVICES_PATH("rpcc.services.path", "services"),
    SERVICES_CLASSES("rpcc.services.classes", ""),
    HEALTH_PORT("rpcc.health.port", "7301"),
    METRICS_ENABLED("rpcc.metrics.enabled", "true"),
    TRACING_OTLP_ENDPOINT("rpcc.tracing.otlp.endpoint", null),
    TRACING_OTLP_HEADERS("rpcc.tracing.otlp.headers", ""),
    TRACING_SAMPLING_PROBABILITY("rpcc.tracing.sampling.probability", "1.0"),
    SHUTDOWN_GRACE("rpcc.shutdown.grace", "10s"),
    LOG_LEVEL("rpcc.log.level", "info"),
    TLS_CERTIFICATE("rpcc.tls.certificate", null),
    TLS_PRIVATE_KEY("rpcc.tls.private-key", null),
    TLS_TRUSTED_CERTIFICATES("rpcc.tls.trusted-certificates", null),
    POLICY_ALLOW("rpcc.policy.allow", ""),
    POLICY_REQUIRE_AUTHENTICATED_ORIGINATOR("rpcc.policy.require-authenticated-originator", "false"),
    SANDBOX_ENABLED("rpcc.sandbox.enabled", "true"),
    SANDBOX_CPU_TIME("rpcc.sandbox.cpu-time", "300ms"),
    SANDBOX_MEMORY("rpcc.sandbox.memory", "32MiB"),
    SANDBOX_WALL_TIME("rpcc.sandbox.wall-time", "2s"),
    FUNCTIONS_JAVA_ISOLATION("rpcc.functions.java.isolation", "by-trust"),
    FUNCTIONS_JAVA_RUNNERS("rpcc.functions.java.runners", "2"),
    FUNCTIONS_JAVA_SPARE_RUNNERS("rpcc.functions.java.spare-runners", "2"),
    FUNCTIONS_JAVA_RUNNER_QUEUE("rpcc.functions.java.runner-queue", "32"),
    FUNCTIONS_JAVA_RUNNER_HEAP("rpcc.functions.java.runner-heap", "96MiB"),
    FUNCTIONS_PRECOMPILE_DIRECTORY("rpcc.functions.precompile.directory", null),
    FUNCTIONS_PRECOMPILE_MAX_FUNCTIONS("rpcc.functions.precompile.max-functions", "64"),
    FUNCTIONS_PRECOMPILE_BUDGET("rpcc.functions.precompile.budget", "60s"),
    MAX_FRAME_SIZE("rpcc.limits.max-frame-size", "16MiB"),
    MAX_HOPS("rpcc.limits.max-hops", "2000"),
    MAX_INBOUND_CONNECTIONS("rpcc.limits.max-inbound-connections", "1024"),
    MAX_INBOUND_CONNECTIONS_PER_ADDRESS("rpcc.limits.max-inbound-connections-per-address", "256"),
    MAX_OUTBOUND_CONNECTIONS("rpcc.limits.max-outbound-connections", "1024"),
    MAX_DIALS_IN_PROGRESS("rpcc.limits.max-dials-in-progress", "64"),
    OUTBOUND_POLICY("rpcc.limits.outbound-policy", "vouched"),
    MAX_PARTIAL_FRAME_BYTES("rpcc.limits.max-partial-frame-bytes", "256MiB"),
    MAX_QUEUED_WRITE_BYTES("rpcc.limits.max-queued-write-bytes", "64MiB"),
    MAX_TOTAL_QUEUED_WRITE_BYTES("rpcc.limits.max-total-queued-write-bytes", "256MiB"),
    MAX_BAD_FRAMES_PER_CONNECTION("rpcc.limits.max-bad-frames-per-connection", "64"),
    BAD_FRAME_REFILL_PER_MINUTE("rpcc.limits.bad-frame-refill-per-minute", "60"),
    MAX_NODE_NAME_LENGTH("rpcc.limits.max-node-name-length", "255"),
    MAX_VALUE_DEPTH("rpcc.limits.max-value-depth", "128"),
    FUNCTION_CACHE_SIZE("rpcc.limits.function-cache-size", "256"),
    MAX_FUNCTION_SOURCE_CHARS("rpcc.limits.max-function-source-chars", "65536"),
    MAX_QUEUED_COMPILES("rpcc.limits.max-queued-compiles", "16"),
    STREAMS_BUFFER_BYTES("rpcc.streams.buffer-bytes", null),
    STREAMS_BUFFER_SHARE("rpcc.streams.buffer-share", "0.5"),
    STREAMS_WINDOW_BYTES("rpcc.streams.window-bytes", "4MiB"),
    STREAMS_CHUNK_BYTES("rpcc.streams.chunk-bytes", "64KiB"),
    STREAMS_MAX_PER_CONNECTION("rpcc.streams.max-per-connection", "256"),
    STREAMS_IDLE_TIMEOUT("rpcc.streams.idle-timeout", "30s"),
    CONNECT_TIMEOUT("rpcc.timeouts.connect", "5s"),
    HANDSHAKE_TIMEOUT("rpcc.timeouts.handshake", "10s"),
    IDLE_TIMEOUT("rpcc.timeouts.idle", "5m"),
    FRAME_TIMEOUT("rpcc.timeouts.frame", "2m"),
    REPLY_WRITE_TIMEOUT("rpcc.timeouts.reply-write", "30s"),
    DEADLINE_NETWORK_ALLOWANCE("rpcc.timeouts.deadline-network-allowance", "1ms");

    private final String key;
    private final @Nullable String defaultValue;

    ConfigKey(String key, @Nullable String defaultValue) {
        this.key = key;
        this.defaultValue = defaultValue;
    }

    /** The key as written in the properties file, e.g. {@code rpcc.health.port}. */
    public String key() {
        return key;
    }

    /** The value used when neither the file nor the environment sets the key, or {@code null}. */
    public @Nullable String defaultValue() {
        return defaultValue;
    }

    /** The environment variable that overrides the key: upper case, {@code .} and {@code -} become {@code _}. */
    public String environmentVariable() {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The key named {@code key}, if there is one. */
    public static Optional<ConfigKey> of(String key) {
        return Arrays.stream(values()).filter(k -> k.key.equals(key)).findFirst();
    }

    /** The known key closest in spelling to {@code unknown}, for "did you mean" hints. */
    public static ConfigKey closestTo(String unknown) {
        return Arrays.stream(values()).min(Comparator.comparingInt(k -> editDistance(k.key, unknown))).orElseThrow();
    }

    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
