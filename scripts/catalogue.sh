#!/usr/bin/env bash
# catalogue: the content of a catalogue of many Bibles, the five Bibles of
# ../shared/bibles copied under different ids. Sourced by bench-catalogue.sh
# and bench-scale.sh; needs PUBLISH (the publish binary).
#
#   catalogue_import DIR            import each of the five Bibles once into DIR (ids 1–5)
#   catalogue_content DIR CONTENT COPIES
#                                   fill CONTENT with 5 × COPIES Bibles made from DIR's imports,
#                                   ids 100001…, with the fixtures' licences and organizations
#
# Copies are the import under another id (the id changed in bible.json), which
# is what importing it again would write, without parsing it ten times over.
# Each copy's book titles (\h, \toc2) carry the copy's number: the titles are in
# every passage's reference, so a copy's packs are its own, as another
# translation's would be. (Identical copies would share their packs, which are
# content-addressed, and measure nothing.)

# The five Bibles: folder, language, abbreviation, title.
catalogue_sources=(
	"eng-web|en|WEB|World English Bible"
	"eng-bsb|en|BSB|Berean Standard Bible"
	"eng-kjv1611|en|KJV1611|King James Version 1611"
	"spa-rv1909|es|RV1909|Reina-Valera 1909"
	"hbo-uhb|hbo|UHB|unfoldingWord Hebrew Bible"
)
catalogue_org=e88fbc6b-9864-482f-a534-0f2e0251faeb # licence 1's organization in fixtures/content

catalogue_import() { # DIR
	local i dir lang abbr title
	for i in "${!catalogue_sources[@]}"; do
		IFS='|' read -r dir lang abbr title <<<"${catalogue_sources[$i]}"
		"$PUBLISH" import --content "$1" --id $((i + 1)) --language "$lang" --abbreviation "$abbr" \
			--title "$title" --license 1 --organization "$catalogue_org" "../shared/bibles/$dir" >/dev/null 2>>"$1.log"
	done
}

catalogue_content() { # DIR CONTENT COPIES
	local imported=$1 content=$2 copies=$3 c i id
	mkdir -p "$content/bibles"
	cp -r fixtures/content/licenses fixtures/content/organizations "$content/"
	for ((c = 0; c < copies; c++)); do
		for i in "${!catalogue_sources[@]}"; do
			id=$((100000 + c * 10 + i + 1))
			cp -r "$imported/bibles/$((i + 1))" "$content/bibles/$id"
			sed -i -E "0,/\"id\": *[0-9]+/s//\"id\": $id/" "$content/bibles/$id/bible.json"
			if ((c > 0)); then
				sed -i -E "s/^\\\\(h|toc2) (.*)\$/\\\\\1 \2 $c/" "$content/bibles/$id/"*.usfm
			fi
		done
	done
}
