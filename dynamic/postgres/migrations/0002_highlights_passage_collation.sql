-- Passage ids are ASCII USFM ids (JHN.3.16). In byte order ("C") every id of
-- a chapter or book shares a prefix and so lies in one contiguous range of
-- the primary key, which lets a chapter read be one index range scan instead
-- of one probe per verse. Under a language collation punctuation is ignored
-- at the first level and the prefix range would not be contiguous.
-- Equality is byte equality under both collations, so the primary key keeps
-- the same rows apart.
ALTER TABLE highlights ALTER COLUMN passage_id TYPE text COLLATE "C";
