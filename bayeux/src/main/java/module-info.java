/**
 * What both ends of a Bayeux connection share: {@link io.weft.bayeux.Message}, {@link io.weft.bayeux.ChannelId},
 * {@link io.weft.bayeux.Promise}, {@link io.weft.bayeux.BayeuxError} and the JSON {@link io.weft.bayeux.Codec}. The
 * server ({@code io.weft.server}) and the Java client ({@code io.weft.client}) both build on it. Its implementation
 * package is open to the server alone, which freezes messages and encodes each once for all its recipients.
 */
@SuppressWarnings("module") // io.weft.server, the one module the internal package is open to, is built after this one
module io.weft.bayeux {
    requires transitive com.fasterxml.jackson.core;
    requires com.fasterxml.jackson.databind;

    exports io.weft.bayeux;
    exports io.weft.bayeux.internal to io.weft.server;
}
