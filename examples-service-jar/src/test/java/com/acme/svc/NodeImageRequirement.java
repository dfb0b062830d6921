package com.acme.svc;

import io.rpcc.testcontainers.RpccNodeContainer;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.opentest4j.AssertionFailedError;

/**
 * Runs the container test where Docker answers; elsewhere skips it, unless Docker is required
 * ({@code CI=true} or {@code -Drpcc.docker.required=true}). A missing image is not skipped:
 * {@code RpccNodeContainer} fails at once saying to build it with {@code ./rpcc image}.
 */
final class NodeImageRequirement implements ExecutionCondition {
    static final String IMAGE = System.getProperty("rpcc.image", "rpcc-node:latest");

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        // not DockerClientFactory.instance().isDockerAvailable(): it starts Ryuk (pulling its image)
        if (RpccNodeContainer.isDockerAvailable()) {
            return ConditionEvaluationResult.enabled("Docker answers");
        }
        String problem = "Docker is not available (./rpcc test installs docker.io and starts dockerd as root)";
        if (Boolean.getBoolean("rpcc.docker.required") || "true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionFailedError(problem + " (Docker is required here: CI=true or -Drpcc.docker.required=true)");
        }
        return ConditionEvaluationResult.disabled(problem + ": the container test is skipped");
    }
}
