/**
 * The standalone rpcc node: {@link io.rpcc.node.RpccNode} runs a server from a properties file and
 * {@code RPCC_*} environment variables ({@code java -jar rpcc-node.jar --config node.properties}),
 * loading the user's service functions from jars through {@link io.rpcc.node.ServiceModule}.
 */
@NullMarked
package io.rpcc.node;

import org.jspecify.annotations.NullMarked;
