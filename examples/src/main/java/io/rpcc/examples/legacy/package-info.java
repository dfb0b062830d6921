/**
 * Legacy services in a chain (paper section 3.5): a real gRPC server and a real HTTP/JSON server,
 * each wrapped as service functions by an rpcc node beside it, on the emulated WAN.
 */
package io.rpcc.examples.legacy;
