package main

// The operator's block-list of trending phrases (docs/search.md).

import (
	"context"
	"fmt"
	"strconv"

	"github.com/bibleplatform/platform/dynamic/postgres"
	"github.com/bibleplatform/platform/trending"
)

type trendingCmd struct {
	Block   trendingBlockCmd   `cmd:"" help:"Keep a phrase out of trending, in every language, from the next snapshot on (5 s)."`
	Unblock trendingUnblockCmd `cmd:"" help:"Let a blocked phrase trend again."`
	List    trendingListCmd    `cmd:"" help:"List the blocked phrases."`
}

type trendingBlockCmd struct {
	dbFlag
	output `kong:"-"`
	Phrase string `arg:"" help:"The phrase, as searched; it is normalised as trending counts it."`
}

// withPhrase normalises phrase as the edges count it (or says why it
// cannot be one) and runs fn on it with the database.
func withPhrase(ctx context.Context, f dbFlag, phrase string, fn func(*postgres.DB, string) error) error {
	p := trending.Normalize(phrase)
	if p == "" {
		return fmt.Errorf("%s is not a phrase trending counts (control characters, markup and URLs never enter it)", strconv.Quote(phrase))
	}
	db, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db, p)
}

func (c *trendingBlockCmd) Run(ctx context.Context) error {
	return withPhrase(ctx, c.dbFlag, c.Phrase, func(db *postgres.DB, p string) error {
		if err := db.BlockPhrase(ctx, p); err != nil {
			return err
		}
		fmt.Fprintf(c.out(), "blocked %s\n", strconv.Quote(p))
		return nil
	})
}

type trendingUnblockCmd struct {
	dbFlag
	output `kong:"-"`
	Phrase string `arg:"" help:"The phrase, as blocked or as searched."`
}

func (c *trendingUnblockCmd) Run(ctx context.Context) error {
	return withPhrase(ctx, c.dbFlag, c.Phrase, func(db *postgres.DB, p string) error {
		ok, err := db.UnblockPhrase(ctx, p)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%s is not blocked (dynamic trending list shows what is)", strconv.Quote(p))
		}
		fmt.Fprintf(c.out(), "unblocked %s\n", strconv.Quote(p))
		return nil
	})
}

type trendingListCmd struct {
	dbFlag
	output `kong:"-"`
}

func (c *trendingListCmd) Run(ctx context.Context) error {
	db, err := c.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	list, err := db.BlockedPhrases(ctx)
	if err != nil {
		return err
	}
	for _, p := range list {
		fmt.Fprintln(c.out(), p)
	}
	return nil
}
