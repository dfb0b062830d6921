/**
 * The standalone node behind {@link io.rpcc.node.RpccNode}: its configuration (every key in
 * {@link io.rpcc.node.internal.ConfigKey}, read from a properties file and {@code RPCC_*} environment
 * variables, parsed and checked at once by {@link io.rpcc.node.internal.NodeConfig}), its peers
 * ({@link io.rpcc.node.internal.PeerResolver}), the user's service jars
 * ({@link io.rpcc.node.internal.ServiceJars}), its {@code /live} and {@code /ready} health endpoint,
 * and the running node that starts and stops them in order
 * ({@link io.rpcc.node.internal.StandaloneNode}).
 *
 * <p>Implementation, not API: anything in this package may change or disappear at any time, in any
 * release, and applications must not use it.
 */
package io.rpcc.node.internal;
