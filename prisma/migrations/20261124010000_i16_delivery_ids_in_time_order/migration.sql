-- Delivery ids in time order (UUID version 7, RFC 9562): a 48-bit Unix time in milliseconds, then
-- random bits. With random (version 4) ids, each bulk notification's thousand rows went into a thousand
-- places of the primary key's index; in time order they go at its end, which cost Postgres about an
-- eighth less per delivery on a table of a few hundred thousand rows, and more as it grows.
-- (Postgres 18 has uuidv7(); this is the same layout for 15 and later.) Delivery ids are never shown
-- to clients, so the time they carry tells nobody anything.
CREATE FUNCTION "herald_uuid_v7"() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
    set_bit(set_bit(
      -- A version 4 UUID whose first 6 bytes become the time; then its version nibble, 0100, becomes 0111.
      overlay(uuid_send(gen_random_uuid()) PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;
