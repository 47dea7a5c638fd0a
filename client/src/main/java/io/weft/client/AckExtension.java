package io.weft.client;

import io.weft.bayeux.Message;
import java.util.Map;

/**
 * The client side of the acknowledged-messages extension: asks for it in the handshake's {@code ext.ack}, and, when
 * the server agreed, sends back on each {@code /meta/connect} the batch id the last {@code /meta/connect} reply
 * carried ({@code -1} before any), so the server can resend what never arrived. One instance per client.
 */
final class AckExtension implements ClientExtension {
    private volatile boolean enabled;
    private volatile long lastBatch = -1;

    @Override
    public boolean outgoing(BayeuxClient client, Message.Mutable message) {
        String channel = message.getChannel();
        if ("/meta/handshake".equals(channel)) {
            enabled = false;
            lastBatch = -1;
            message.getExt(true).put("ack", Boolean.TRUE);
        } else if (enabled && "/meta/connect".equals(channel)) {
            message.getExt(true).put("ack", lastBatch);
        }
        return true;
    }

    @Override
    public boolean incoming(BayeuxClient client, Message.Mutable message) {
        String channel = message.getChannel();
        if ("/meta/handshake".equals(channel)) {
            Map<String, Object> ext = message.getExt();
            enabled = message.isSuccessful() && ext != null && Boolean.TRUE.equals(ext.get("ack"));
        } else if (enabled && "/meta/connect".equals(channel) && message.isSuccessful()) {
            Map<String, Object> ext = message.getExt();
            if (ext != null && ext.get("ack") instanceof Number batch) {
                lastBatch = batch.longValue();
            }
        }
        return true;
    }

    boolean isEnabled() {
        return enabled;
    }
}
