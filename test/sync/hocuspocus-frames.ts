import * as decoding from "lib0/decoding";
import * as encoding from "lib0/encoding";

/** A frame as a Hocuspocus server writes it: the room's name, then the message (`bytes`). */
export function roomFrame(room: string, bytes: number[]): Uint8Array {
  const encoder = encoding.createEncoder();
  encoding.writeVarString(encoder, room);
  for (const b of bytes) encoding.writeUint8(encoder, b);
  return encoding.toUint8Array(encoder);
}

/** Whether a Hocuspocus frame is a sync step 2 (MessageType.Sync, then y-protocols' step 2). */
export function isStep2(frame: Uint8Array): boolean {
  const decoder = decoding.createDecoder(frame);
  try {
    decoding.readVarString(decoder);
    return decoding.readVarUint(decoder) === 0 && decoding.readVarUint(decoder) === 1;
  } catch {
    return false;
  }
}
