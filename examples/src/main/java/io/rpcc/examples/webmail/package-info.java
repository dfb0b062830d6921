/**
 * The web mail application and the papers' figure 14 ({@link io.rpcc.examples.webmail.WebMail}): four
 * servers on the emulated wide area, reached with rpcc chains, with plain rpcc calls and with gRPC-java
 * ({@link io.rpcc.examples.webmail.GrpcWebMail}), all running the same service code
 * ({@link io.rpcc.examples.webmail.MailServices}).
 */
package io.rpcc.examples.webmail;
