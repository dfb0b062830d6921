package io.rpcc.testcontainers;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.AssertionFailedError;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.utility.DockerImageName;

/**
 * Runs a container test class only where Docker answers and the node image ({@link #IMAGE}) exists.
 * Elsewhere the class is skipped with the reason, except when Docker is required ({@code CI=true}
 * in the environment, or {@code -Drpcc.docker.required=true}): then it fails.
 */
final class DockerRequirement implements ExecutionCondition {
    /** The node image the container tests run: system property {@code rpcc.image} (set by the build). */
    static final String IMAGE = System.getProperty("rpcc.image", "rpcc-node:latest");

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String problem = problem();
        if (problem == null) {
            return ConditionEvaluationResult.enabled("Docker answers and " + IMAGE + " exists");
        }
        if (required()) {
            throw new AssertionFailedError(problem + " (Docker is required here: CI=true or -Drpcc.docker.required=true)");
        }
        return ConditionEvaluationResult.disabled(problem + ": the container tests are skipped");
    }

    /** Whether a missing Docker or image fails the tests rather than skipping them. */
    static boolean required() {
        return Boolean.getBoolean("rpcc.docker.required") || "true".equalsIgnoreCase(System.getenv("CI"));
    }

    private static String problem() {
        // not DockerClientFactory's isDockerAvailable() or client(): they start Ryuk, which pulls its image
        // (minutes of retries without a registry); DockerPreflight says at once what to set instead
        if (!RpccNodeContainer.isDockerAvailable()) {
            return "Docker is not available (no daemon answers; ./rpcc test installs docker.io and starts dockerd as root)";
        }
        if (!RpccNodeContainer.isImageLocal(IMAGE)) {
            return "the image " + IMAGE + " does not exist: build it with ./rpcc image";
        }
        try {
            DockerPreflight.check(DockerImageName.parse(IMAGE));
            return null;
        } catch (ContainerLaunchException e) {
            return e.getMessage();
        }
    }
}
