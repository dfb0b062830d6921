package io.rpcc.testcontainers;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.PullImageResultCallback;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.Image;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.dockerclient.DockerClientProviderStrategy;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.ImageNameSubstitutor;

/**
 * What {@link RpccNodeContainer#start()} checks before Testcontainers may pull anything, so that a
 * machine without a reachable registry fails in seconds with what to do, rather than after minutes
 * of pull retries:
 *
 * <ul>
 *   <li>the node image must be in the local Docker daemon when it names neither a registry nor a
 *       namespace (rpcc publishes no image: {@code ./rpcc image} builds {@code rpcc-node:<version>});
 *       an image of a registry or a namespace ({@code registry.acme.com/rpcc-node:1},
 *       {@code acme/rpcc-node:1}) is pulled by Testcontainers as usual;
 *   <li>Ryuk, Testcontainers' reaper container, starts with the first container unless
 *       {@code TESTCONTAINERS_RYUK_DISABLED=true}: if its image is not local, one pull is tried, and if
 *       it fails (no registry) or takes over {@value #RYUK_PULL_SECONDS} s, the start fails naming the variable.
 * </ul>
 *
 * It talks to Docker through a client of its own ({@link DockerClientProviderStrategy#getClientForConfig}):
 * {@code DockerClientFactory.instance().client()} would start Ryuk first, which is what must not hang.
 */
final class DockerPreflight {
    static final String RYUK_DISABLED_VARIABLE = "TESTCONTAINERS_RYUK_DISABLED";
    static final int RYUK_PULL_SECONDS = 30;

    /** Ryuk images found local or pulled, so later starts skip the check. */
    private static final java.util.Set<String> READY_RYUK_IMAGES = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private DockerPreflight() {
    }

    /**
     * Fails with a {@link ContainerLaunchException} saying what to do if {@code image} (after
     * Testcontainers' image-name substitution) is missing and cannot be pulled, or Ryuk is enabled and
     * its image can be neither found nor pulled.
     */
    static void check(DockerImageName image) {
        check(image, Boolean.parseBoolean(System.getenv(RYUK_DISABLED_VARIABLE)), ryukImage());
    }

    /**
     * The image Testcontainers starts Ryuk from (before substitution): the tag is a constant of its
     * {@code RyukContainer} ({@code TestcontainersConfiguration.getRyukImage()} has no tag), read from
     * that class file, else the tag of Testcontainers 2.0.5.
     */
    static DockerImageName ryukImage() {
        String image = "testcontainers/ryuk:0.14.0";
        try (InputStream in = DockerClientFactory.class.getClassLoader()
                .getResourceAsStream("org/testcontainers/utility/RyukContainer.class")) {
            if (in != null) {
                Matcher m = RYUK_TAG.matcher(new String(in.readAllBytes(), StandardCharsets.ISO_8859_1));
                if (m.find()) {
                    image = m.group();
                }
            }
        } catch (IOException | RuntimeException e) {
            // the default above
        }
        return DockerImageName.parse(image);
    }

    private static final Pattern RYUK_TAG = Pattern.compile("testcontainers/ryuk:[0-9][0-9A-Za-z._-]*");

    /** {@link #check(DockerImageName)} with Ryuk's setting and image given (for tests). */
    static void check(DockerImageName image, boolean ryukDisabled, DockerImageName ryukImage) {
        DockerImageName resolved = ImageNameSubstitutor.instance().apply(image);
        withClient(docker -> {
            // a bare name (rpcc-node:1) is a local build; one with a registry or a namespace is pulled as usual
            boolean bare = resolved.getRegistry().isEmpty() && !resolved.getRepository().contains("/");
            if (bare && !isLocal(docker, resolved)) {
                throw new ContainerLaunchException(missingImage(docker, resolved));
            }
            DockerImageName ryuk = ImageNameSubstitutor.instance().apply(ryukImage);
            if (!ryukDisabled && !READY_RYUK_IMAGES.contains(ryuk.asCanonicalNameString())) {
                checkRyuk(docker, ryuk);
                READY_RYUK_IMAGES.add(ryuk.asCanonicalNameString());
            }
            return null;
        });
    }

    /**
     * Whether a Docker daemon answers, found as Testcontainers finds it, without starting Ryuk
     * ({@code DockerClientFactory.isDockerAvailable()} creates Testcontainers' client, which starts Ryuk
     * and so pulls its image first: minutes of retries without a registry).
     */
    static boolean dockerAnswers() {
        try {
            return withClient(docker -> {
                docker.pingCmd().exec();
                return true;
            });
        } catch (RuntimeException e) { // no Docker environment (IllegalStateException), or it does not answer
            return false;
        }
    }

    /** Whether {@code image} is in the local Docker daemon (the pull policy of {@link RpccNodeContainer}: pull only if not). */
    static boolean isLocal(DockerImageName image) {
        return withClient(docker -> isLocal(docker, image));
    }

    private static boolean isLocal(DockerClient docker, DockerImageName image) {
        try {
            docker.inspectImageCmd(image.asCanonicalNameString()).exec();
            return true;
        } catch (NotFoundException e) {
            return false;
        }
    }

    private static String missingImage(DockerClient docker, DockerImageName image) {
        String name = image.asCanonicalNameString();
        List<String> others = List.of();
        try {
            others = docker.listImagesCmd().withImageNameFilter(image.getUnversionedPart()).exec().stream()
                    .map(Image::getRepoTags).filter(Objects::nonNull).flatMap(Arrays::stream)
                    .filter(tag -> !tag.endsWith(":<none>")).sorted().toList();
        } catch (RuntimeException e) {
            // only a hint
        }
        return "image " + name + " is not in the local Docker daemon (" + DockerClientFactory.instance().getTransportConfig()
                .getDockerHost() + "), and rpcc publishes no image to a registry: build it with ./rpcc image in the rpcc"
                + " sources (it tags rpcc-node:<version> and rpcc-node:latest), or docker load it, then use that tag"
                + (others.isEmpty() ? "" : " (local images of " + image.getUnversionedPart() + ": " + String.join(", ", others) + ")")
                + ". Nothing was pulled.";
    }

    private static void checkRyuk(DockerClient docker, DockerImageName ryuk) {
        if (isLocal(docker, ryuk)) {
            return;
        }
        String problem;
        try {
            boolean done = docker.pullImageCmd(ryuk.getUnversionedPart()).withTag(ryuk.getVersionPart())
                    .exec(new PullImageResultCallback()).awaitCompletion(RYUK_PULL_SECONDS, TimeUnit.SECONDS);
            problem = done && isLocal(docker, ryuk) ? null : "its pull did not finish within " + RYUK_PULL_SECONDS + " s";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ContainerLaunchException("interrupted while pulling " + ryuk.asCanonicalNameString(), e);
        } catch (RuntimeException e) {
            problem = "pulling it failed: " + String.valueOf(e.getMessage()).strip();
        }
        if (problem != null) {
            throw new ContainerLaunchException(ryukMessage(ryuk, problem));
        }
    }

    static String ryukMessage(DockerImageName ryuk, String problem) {
        return "Testcontainers starts its reaper container Ryuk (" + ryuk.asCanonicalNameString() + ") before any other,"
                + " but that image is not in the local Docker daemon and " + problem + ". Where no registry is reachable,"
                + " set the environment variable " + RYUK_DISABLED_VARIABLE + "=true for the tests (Testcontainers "
                + DockerClientFactory.TESTCONTAINERS_VERSION + " reads it only from the environment,"
                + " not from ~/.testcontainers.properties; in Maven: <environmentVariables> of Surefire or Failsafe),"
                + " or docker load that image. Containers are then removed when each test class stops them.";
    }

    private static <T> T withClient(Function<DockerClient, T> work) {
        DockerClient docker = DockerClientProviderStrategy.getClientForConfig(DockerClientFactory.instance().getTransportConfig());
        try {
            return work.apply(docker);
        } finally {
            try {
                docker.close();
            } catch (IOException e) {
                // nothing to do
            }
        }
    }
}
