/**
 * Micrometer observations of rpcc chains ({@link io.rpcc.spring.boot.observation.ObservationChainDecorator},
 * at the client) and hops ({@link io.rpcc.spring.boot.observation.ObservationHopDecorator}, at the
 * server); names and keys in {@link io.rpcc.spring.boot.observation.RpccObservations}.
 */
@NullMarked
package io.rpcc.spring.boot.observation;

import org.jspecify.annotations.NullMarked;
