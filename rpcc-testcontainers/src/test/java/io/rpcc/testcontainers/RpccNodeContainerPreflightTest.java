package io.rpcc.testcontainers;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.utility.DockerImageName;

/**
 * Without a reachable registry, {@link RpccNodeContainer#start()} fails in seconds saying what to do,
 * rather than after minutes of pull retries: a node image that is not local, and Ryuk's image when
 * Ryuk is enabled and its image can be neither found nor pulled. Needs Docker (not a registry).
 */
@ExtendWith(DockerRequirement.class)
class RpccNodeContainerPreflightTest {
    private static final Duration FAST = Duration.ofSeconds(10);

    @Test
    void aNodeImageThatIsNotLocalFailsTheStartAtOnceSayingHowToBuildIt() {
        String image = "rpcc-node:no-such-version-" + System.nanoTime();
        try (RpccNodeContainer node = new RpccNodeContainer(image, "node-a")) {
            Instant start = Instant.now();
            ContainerLaunchException e = assertThrows(ContainerLaunchException.class, node::start);
            Duration took = Duration.between(start, Instant.now());

            assertTrue(e.getMessage().startsWith("image " + image + " is not in the local Docker daemon"), e.getMessage());
            assertTrue(e.getMessage().contains("build it with ./rpcc image"), e.getMessage());
            assertTrue(e.getMessage().contains("local images of rpcc-node: ") && e.getMessage().contains(DockerRequirement.IMAGE),
                    "lists the tags there are: " + e.getMessage());
            assertTrue(e.getMessage().endsWith("Nothing was pulled."), e.getMessage());
            assertTrue(took.compareTo(FAST) < 0, "failed in " + took);
            assertNull(node.getContainerId(), "no container was created");
        }
    }

    @Test
    void anEnabledRyukWhoseImageCannotBePulledFailsAtOnceNamingTheVariable() {
        // the image of a registry that is never reachable (.invalid, RFC 2606), so the pull fails wherever this runs
        DockerImageName ryuk = DockerImageName.parse("registry.invalid/testcontainers/ryuk:0.0.0");
        Instant start = Instant.now();
        ContainerLaunchException e = assertThrows(ContainerLaunchException.class,
                () -> DockerPreflight.check(DockerImageName.parse(DockerRequirement.IMAGE), false, ryuk));
        Duration took = Duration.between(start, Instant.now());

        assertTrue(e.getMessage().startsWith("Testcontainers starts its reaper container Ryuk (registry.invalid/testcontainers/ryuk:0.0.0)"
                + " before any other, but that image is not in the local Docker daemon and pulling it failed: "), e.getMessage());
        assertTrue(e.getMessage().contains("set the environment variable TESTCONTAINERS_RYUK_DISABLED=true for the tests"),
                e.getMessage());
        assertTrue(e.getMessage().contains("not from ~/.testcontainers.properties"), e.getMessage());
        assertTrue(took.compareTo(FAST) < 0, "failed in " + took);
    }

    @Test
    void aLocalImagePassesAndRyukIsNotCheckedWhenDisabled() {
        DockerPreflight.check(DockerImageName.parse(DockerRequirement.IMAGE), true,
                DockerImageName.parse("registry.invalid/testcontainers/ryuk:0.0.0"));
        assertTrue(DockerPreflight.isLocal(DockerImageName.parse(DockerRequirement.IMAGE)));
    }
}
