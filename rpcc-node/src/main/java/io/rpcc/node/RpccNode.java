package io.rpcc.node;

import io.rpcc.node.internal.ConfigException;
import io.rpcc.node.internal.ConfigValues;
import io.rpcc.node.internal.NodeConfig;
import io.rpcc.node.internal.StandaloneNode;
import java.util.ServiceConfigurationError;
import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;

/**
 * The standalone node's main class: {@code java -jar rpcc-node.jar [--config node.properties]}.
 * Every key of the file may also come from the environment ({@code rpcc.health.port} from
 * {@code RPCC_HEALTH_PORT}), which wins over the file. The keys are listed in
 * docs/reference/node-properties.md.
 *
 * <p>Once the node listens it prints {@code rpcc node '<name>' ready at <host>:<port>}. On SIGTERM
 * (or SIGINT) it drains gracefully, prints {@code rpcc node '<name>' stopped} and exits with 0. A bad
 * configuration prints one line naming the key, its value and what was expected, and exits with 2;
 * a node that fails to start otherwise (a port in use, a service module that throws) exits with 1.
 */
public final class RpccNode {
    /** Exit code of a bad configuration. */
    public static final int EXIT_BAD_CONFIGURATION = 2;
    /** Exit code of a node that could not start for another reason. */
    public static final int EXIT_START_FAILED = 1;

    /** logback's system property naming its configuration file. */
    private static final String LOGBACK_CONFIGURATION = "logback.configurationFile";
    /** The node's default logback configuration, a class path resource of rpcc-node.jar. */
    private static final String LOGBACK_DEFAULT = "io/rpcc/node/logback-node.xml";

    private RpccNode() {
    }

    /**
     * Points logback at the node's bundled configuration ({@value #LOGBACK_DEFAULT}) unless the operator
     * named one with {@code -Dlogback.configurationFile}, and gives it the level of {@code rpcc.log.level}
     * as the system property {@code rpcc.log.level} (which an operator's configuration may use too).
     */
    private static void configureLogging(String level) {
        System.setProperty("rpcc.log.level", level);
        if (System.getProperty(LOGBACK_CONFIGURATION) == null) {
            System.setProperty(LOGBACK_CONFIGURATION, LOGBACK_DEFAULT);
        }
    }

    /** Runs the node until SIGTERM or SIGINT. */
    public static void main(String[] args) throws InterruptedException {
        NodeConfig config;
        ConfigValues values;
        try {
            values = ConfigValues.load(args, System.getenv(), System.err::println);
            config = new NodeConfig(values);
        } catch (ConfigException e) {
            System.err.println("rpcc node: bad configuration: " + e.getMessage());
            System.exit(EXIT_BAD_CONFIGURATION);
            return;
        }
        configureLogging(config.logLevel()); // before the first logger
        StandaloneNode node;
        try {
            node = StandaloneNode.start(values, config, System.out);
        } catch (ConfigException e) {
            System.err.println("rpcc node '" + config.name() + "': bad configuration: " + e.getMessage());
            System.exit(EXIT_BAD_CONFIGURATION);
            return;
        } catch (Exception | ServiceConfigurationError | LinkageError e) {
            System.err.println("rpcc node '" + config.name() + "' failed to start: " + e);
            e.printStackTrace();
            System.exit(EXIT_START_FAILED);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            node.stop();
            stopped.countDown();
        }, "rpcc-node-shutdown"));
        // SIGTERM would end the JVM with 143 after the hook; exiting with 0 runs the same hook.
        Signal.handle(new Signal("TERM"), signal -> System.exit(0));
        Signal.handle(new Signal("INT"), signal -> System.exit(0));
        stopped.await();
    }
}
