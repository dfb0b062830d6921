/**
 * rpcc nodes in Docker containers for Testcontainers-based integration tests:
 * {@link io.rpcc.testcontainers.RpccNodeContainer}.
 *
 * <h2>What a project's own integration tests need</h2>
 *
 * <ul>
 *   <li><b>The image, built locally.</b> rpcc publishes no image: {@code ./rpcc image} in the rpcc
 *       sources builds {@code rpcc-node:<version>} and {@code rpcc-node:latest} into the local Docker
 *       daemon, from local files only. A container of an image that is not local (and names no
 *       registry) fails at {@code start()} at once, saying so; a local image is never pulled again.
 *   <li><b>No registry reachable: Ryuk off.</b> Testcontainers starts its reaper container Ryuk
 *       ({@code testcontainers/ryuk}) before any other, pulling it from Docker Hub. Without a registry,
 *       set the environment variable {@code TESTCONTAINERS_RYUK_DISABLED=true} for the test JVM.
 *       Testcontainers 2.0 reads it only from the environment (not from
 *       {@code ~/.testcontainers.properties}); {@code start()} fails in seconds naming it rather than
 *       waiting for pulls. The containers are then removed when the test class stops them (the
 *       {@code @Container} extension does), not by Ryuk when a JVM dies.
 *   <li><b>Tests in a container or VM: host override.</b> Where Testcontainers would guess a wrong address
 *       for the Docker host (the tests themselves run in a container that is not Docker-in-Docker), set
 *       {@code TESTCONTAINERS_HOST_OVERRIDE=localhost} (also read only from the environment). On a
 *       developer machine with Docker, leave it unset.
 *   <li><b>Failsafe for {@code *IT}.</b> Run the container tests after {@code package}, so that a
 *       service jar under test is the packaged one:
 * <pre>{@code
 * <plugin>
 *   <groupId>org.apache.maven.plugins</groupId>
 *   <artifactId>maven-failsafe-plugin</artifactId>
 *   <version>3.5.3</version>
 *   <executions>
 *     <execution><goals><goal>integration-test</goal><goal>verify</goal></goals></execution>
 *   </executions>
 *   <configuration>
 *     <environmentVariables>
 *       <TESTCONTAINERS_RYUK_DISABLED>true</TESTCONTAINERS_RYUK_DISABLED>
 *     </environmentVariables>
 *     <systemPropertyVariables>
 *       <rpcc.image>rpcc-node:0.1.0-SNAPSHOT</rpcc.image>
 *       <service.jar>${project.build.directory}/${project.build.finalName}.jar</service.jar>
 *     </systemPropertyVariables>
 *   </configuration>
 * </plugin>
 * }</pre>
 *       with test dependencies {@code io.rpcc:rpcc-testcontainers} and
 *       {@code org.testcontainers:testcontainers-junit-jupiter} (and {@code io.rpcc:rpcc-node} as
 *       {@code provided} for a service jar's {@code ServiceModule}). The project's
 *       {@code examples-service-jar} module is such a project.
 *   <li><b>The client reachable from the containers.</b> Results and partial replies come from the
 *       containers to the client in the test JVM at {@code host.docker.internal} (mapped to Docker's
 *       {@code host-gateway}, Docker 20.10 or newer); a host firewall must let the containers' network
 *       reach the client's port.
 * </ul>
 *
 * <h2>Fault tests</h2>
 *
 * {@link io.rpcc.testcontainers.RpccNodeContainer#kill()}, {@link io.rpcc.testcontainers.RpccNodeContainer#pause()},
 * {@link io.rpcc.testcontainers.RpccNodeContainer#unpause()} and
 * {@link io.rpcc.testcontainers.RpccNodeContainer#restart()}. A restarted node gets new host ports: a
 * client from {@link io.rpcc.testcontainers.RpccNodeContainer#clientBuilder} follows them.
 */
@NullMarked
package io.rpcc.testcontainers;

import org.jspecify.annotations.NullMarked;
